#include "host/cli/trace_options.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "driver/trace_scope.h"
#include "host/cli/cli.h"

namespace mxu::host {
namespace {

// The save file names its trace by absolute path (waves/run_layout.cc): the final one, not the
// temporary the trace was recorded to.
std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

void RenameDumpfile(const std::string& gtkw, const std::string& from, const std::string& to) {
  std::ifstream in(gtkw);
  std::stringstream text;
  text << in.rdbuf();
  std::string layout = text.str();
  const std::string old_line = "[dumpfile] \"" + AbsolutePath(from) + "\"";
  const size_t at = layout.find(old_line);
  if (at == std::string::npos) return;
  layout.replace(at, old_line.size(), "[dumpfile] \"" + AbsolutePath(to) + "\"");
  std::ofstream out(gtkw, std::ios::trunc);
  out << layout;
  out.close();
  if (!out) throw std::runtime_error("cannot write GTKWave save file '" + to + "'");
}

// SIGTERM while a trace may be recorded. While the FST is open the platform holds SIGINT: the
// signal is passed on to it as Ctrl-C, so that it closes the file whole (no FILE.hier left) and
// exits 130. Before the window and after it, SIGTERM's own handler takes it (StopOnSignals'
// removes the temporaries, the trace's included).
struct sigaction g_previous_term;
void (*g_int_handler)(int) = nullptr;  // SIGINT's handler when forwarding began
bool g_term_forwarded = false;

void ForwardTerm(int signal) {
  struct sigaction now {};
  if (sigaction(SIGINT, nullptr, &now) == 0 && now.sa_handler != g_int_handler) {
    raise(SIGINT);
  } else if (g_previous_term.sa_handler != SIG_DFL && g_previous_term.sa_handler != SIG_IGN) {
    g_previous_term.sa_handler(signal);
  } else if (g_previous_term.sa_handler == SIG_DFL) {
    sigaction(SIGTERM, &g_previous_term, nullptr);
    raise(SIGTERM);
  }
}

void ForwardTermToInt(bool on) {
  if (on && !g_term_forwarded) {
    struct sigaction now {};
    sigaction(SIGINT, nullptr, &now);
    g_int_handler = now.sa_handler;
    struct sigaction action {};
    action.sa_handler = ForwardTerm;
    sigemptyset(&action.sa_mask);
    g_term_forwarded = sigaction(SIGTERM, &action, &g_previous_term) == 0;
  } else if (!on && g_term_forwarded) {
    sigaction(SIGTERM, &g_previous_term, nullptr);
    g_term_forwarded = false;
  }
}

// Recording needs a backend that can record; the others refuse the options rather than ignore them.
driver::Tracing& TracingOf(driver::Device& device) {
  driver::Tracing* tracing = device.tracing();
  if (!tracing) {
    throw UsageError(std::string("--trace and --timeline need a backend that records (the ") +
                     device.name() + " backend does not)");
  }
  return *tracing;
}

}  // namespace

RunRecorder::~RunRecorder() { ForwardTermToInt(false); }

std::string RunRecorder::GtkwPath(const std::string& fst_path) {
  const std::string ext = ".fst";
  if (fst_path.size() > ext.size() &&
      fst_path.compare(fst_path.size() - ext.size(), ext.size(), ext) == 0) {
    return fst_path.substr(0, fst_path.size() - ext.size()) + ".gtkw";
  }
  return fst_path + ".gtkw";
}

void RunRecorder::AddOutputs(const TraceOptions& options, std::vector<PathArg>* outputs) {
  if (!options.fst_path.empty()) {
    outputs->push_back({"--trace", options.fst_path});
    outputs->push_back({"--trace's save file", GtkwPath(options.fst_path)});
  }
  if (!options.timeline_path.empty()) outputs->push_back({"--timeline", options.timeline_path});
}

void RunRecorder::Arm(driver::Device& device) {
  const bool trace = !options_.fst_path.empty();
  if (!trace && options_.timeline_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  armed_at_ = tracing.cycle();
  if (trace) {
    const uint64_t start = options_.start_cycle > UINT64_MAX - armed_at_
                               ? UINT64_MAX
                               : armed_at_ + options_.start_cycle;
    outputs_->Write(options_.fst_path, [&](const std::string& fst) {
      tracing.SetTrace(fst, start, options_.cycles, driver::ParseTraceScope(options_.scope));
    });
    ForwardTermToInt(true);
  }
  // A trace needs the timeline too: its save file's markers are the run's events.
  tracing.StartTimeline();
}

void RunRecorder::Finish(driver::Device& device) {
  const bool trace = !options_.fst_path.empty();
  if (!trace && options_.timeline_path.empty()) return;
  driver::Tracing& tracing = TracingOf(device);
  const uint64_t end = tracing.cycle();
  const std::string fst = trace ? outputs_->Temp(options_.fst_path) : "";
  if (trace) outputs_->Write(options_.fst_path, [&](const std::string&) { tracing.CloseTrace(); });
  ForwardTermToInt(false);  // only now: the file is closed
  if (!options_.timeline_path.empty()) {
    outputs_->Write(options_.timeline_path,
                    [&](const std::string& timeline) { tracing.WriteTimeline(timeline); });
  } else {
    tracing.StopTimeline();
  }
  if (!trace) return;
  if (!tracing.trace_written()) {
    throw std::runtime_error(
        "no trace written: --trace-start " + std::to_string(options_.start_cycle) +
        " is past the end of the run (" + std::to_string(end - armed_at_) + " cycles)");
  }
  outputs_->Write(GtkwPath(options_.fst_path), [&](const std::string& gtkw) {
    tracing.WriteTraceLayout(gtkw);
    RenameDumpfile(gtkw, fst, options_.fst_path);
  });
}

void AddTraceOptions(CLI::App* app, TraceOptions* options) {
  CLI::Option* trace =
      app->add_option("--trace", options->fst_path,
                      "record an FST waveform of the device to this file, and beside it a ready "
                      "GTKWave layout (t.fst -> t.gtkw: 'gtkwave t.gtkw' opens the trace, zoomed "
                      "on the first tile, with markers)")
          ->type_name("FILE.fst");
  AddInteger(app, "--trace-start", &options->start_cycle, 0, UINT64_MAX,
             "first traced cycle, counted from the start of the run")
      ->needs(trace);
  AddInteger(app, "--trace-cycles", &options->cycles, 0, UINT64_MAX,
             "cycles in the trace window; 0: to the end of the run")
      ->needs(trace);
  app->add_option("--trace-scope", options->scope,
                  "the signals traced: layouts (what the shipped GTKWave layouts show, and the "
                  "other signals of their scopes), all (every signal: about 45x the bytes and 3-4x "
                  "the time of the default, on a 64^3 GEMM's 2000-cycle window), or "
                  "HIER[:DEPTH],... (each scope's signals, DEPTH levels down; default "
                  "all levels), e.g. mxu_top.mxu_top.u_dma:2")
      ->type_name("SCOPE")
      ->check(CLI::Validator(
          [](std::string& text) {
            try {
              driver::ParseTraceScope(text);
              return std::string();
            } catch (const std::invalid_argument& error) {
              return std::string(error.what());
            }
          },
          "", "trace scope"))
      ->needs(trace);
  app->add_option("--timeline", options->timeline_path,
                  "write the instruction timeline (Chrome trace-event JSON) to this file")
      ->type_name("FILE.json");
}

}  // namespace mxu::host
