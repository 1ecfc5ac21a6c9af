// The files a data set is read from, as inputs that no output may replace (host/cli/output_file.h):
// `mxu train --data` and `mxu predict` (its --data, or the data set its model names).
#ifndef MXU_HOST_TRAIN_DATA_INPUTS_H_
#define MXU_HOST_TRAIN_DATA_INPUTS_H_

#include <string>
#include <vector>

#include "host/cli/output_file.h"

namespace mxu::host {

// Every path the IDX loader may read for `data` (a directory, or fashion-mnist), each spelling
// plain and .gz, existing or not: an output there would replace the data set or shadow its .gz.
// `option` names them in messages. Empty for "" (the generated spirals); throws UsageError when
// fashion-mnist is not installed.
std::vector<PathArg> DataInputs(const std::string& option, const std::string& data);

// The --data argument as a checkpoint keeps it: a directory by its absolute path (predict may run
// from another folder), fashion-mnist as it is.
std::string DataForCheckpoint(const std::string& data);

// Whether two --data arguments name one data set (a directory by any path to it).
bool SameData(const std::string& a, const std::string& b);

}  // namespace mxu::host

#endif  // MXU_HOST_TRAIN_DATA_INPUTS_H_
