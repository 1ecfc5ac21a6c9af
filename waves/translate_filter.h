// The loop of a GTKWave translate filter process (waves/*_filter.cc): GTKWave writes one value
// per line as it would display it and waits for one line back per value, so each answer is
// flushed at once. Surrounding blanks are trimmed before `translate` sees the value.
#ifndef MXU_WAVES_TRANSLATE_FILTER_H_
#define MXU_WAVES_TRANSLATE_FILTER_H_

#include <iostream>
#include <string>

namespace mxu::waves {

template <typename Translate>
int RunTranslateFilter(Translate translate) {
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t begin = line.find_first_not_of(" \t\r");
    const size_t end = line.find_last_not_of(" \t\r");
    const std::string token = begin == std::string::npos ? "" : line.substr(begin, end - begin + 1);
    std::cout << translate(token) << std::endl;
  }
  return 0;
}

}  // namespace mxu::waves

#endif  // MXU_WAVES_TRANSLATE_FILTER_H_
