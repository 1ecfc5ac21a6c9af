// What `mxu train` prints and writes about a run: the progress bar, the header, one line per
// epoch, the CSV log's rows, the curves plot and the final summary (text or JSON).
#ifndef MXU_HOST_TRAIN_TRAIN_REPORT_H_
#define MXU_HOST_TRAIN_TRAIN_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "train/checkpoint.h"
#include "train/data/data_source.h"
#include "train/matmul_engine.h"
#include "train/trainer.h"

namespace mxu::host {

// The progress bar rewrites one terminal line; off a terminal only whole epochs are printed.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  void Update(int epoch, int epochs, int step, int steps, double loss);
  void Clear();
  static int Digits(int n) { return static_cast<int>(std::to_string(n).size()); }

 private:
  bool enabled_;
};

// The CSV log: its header and one row per epoch (deterministic for a seed: no wall times).
std::string CsvHeader();
std::string CsvRow(const train::EpochRecord& r);
// "784-128-10".
std::string JoinWidths(const std::vector<int>& widths);

// The weight bytes one rank holds: a slice of each matrix with model parallelism.
size_t WeightBytesPerRank(const train::TrainConfig& config, const train::Trainer& trainer);

// What the run is: data, model, settings, engine, parallelism.
void PrintRunHeader(FILE* text, const train::LoadedData& loaded, const train::TrainConfig& config,
                    const train::Trainer& trainer, const std::string& engine, int ranks,
                    uint64_t global_batch);
void PrintResumed(FILE* text, const std::string& file, const train::Checkpoint& ck);
void PrintSkippedStep(const train::SkippedStep& skip);
void PrintEpoch(FILE* text, const train::EpochRecord& record, const train::TrainConfig& config,
                bool device, int ranks);
// Loss and accuracy per epoch, train and test, as a PNG.
void WritePlot(const std::string& path, const std::vector<train::EpochRecord>& records,
               const std::string& title);

// What a finished run reports: the summary line(s), or the JSON object.
struct RunSummary {
  const train::LoadedData* loaded;
  const train::TrainConfig* config;
  const train::Trainer* trainer;
  const train::MatmulEngine* engine;
  const train::EpochRecord* last;
  bool device, json, quiet, cnn;
  int ranks;
  uint64_t global_batch;
  double wall;
  uint64_t steps_before;  // steps a resumed run's checkpoint had done (not in wall or the cycles)
};
void Report(const RunSummary& run);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_TRAIN_REPORT_H_
