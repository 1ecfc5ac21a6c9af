// Training curves as a PNG line chart: a small software rasteriser, a built-in 5x7 bitmap font
// and a PNG encoder whose only dependency is zlib's deflate (already linked for FST traces).
#ifndef MXU_HOST_TRAIN_PLOT_PNG_H_
#define MXU_HOST_TRAIN_PLOT_PNG_H_

#include <string>
#include <vector>

namespace mxu::train {

// One curve: y[i] is the value at epoch i + 1. NaN and infinite values are left out (a gap in
// the line); a lone point is drawn as a dot; an empty y draws nothing but keeps its legend entry.
struct Series {
  std::string label;
  std::vector<double> y;
};

// The size of the image WriteCurvesPng writes (8-bit RGB).
inline constexpr int kCurvesPngWidth = 900;
inline constexpr int kCurvesPngHeight = 360;

// Writes a kCurvesPngWidth x kCurvesPngHeight PNG to path: title on top, then two panels side by
// side, loss per epoch on the left and accuracy per epoch on the right. Accuracy values are
// fractions in [0, 1], drawn as percent. The x axis is the epoch, 1 to the longest series' length.
// Series with the same index in loss and accuracy get the same colour, so a run's train and test
// curves can be matched across panels. Text is drawn in upper case; characters outside
// 0-9 A-Z . % - + ( ) : / _ = , ' show as '?'. Throws std::runtime_error naming path if the
// file cannot be written.
void WriteCurvesPng(const std::string& path, const std::string& title,
                    const std::vector<Series>& loss, const std::vector<Series>& accuracy);

}  // namespace mxu::train

#endif  // MXU_HOST_TRAIN_PLOT_PNG_H_
