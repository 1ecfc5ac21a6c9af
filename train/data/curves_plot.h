// The training curves of `mxu train --plot`: loss and accuracy per epoch, drawn with the plotting
// module (io/plot/plot.h).
#ifndef MXU_TRAIN_DATA_CURVES_PLOT_H_
#define MXU_TRAIN_DATA_CURVES_PLOT_H_

#include <string>
#include <vector>

#include "io/plot/plot.h"

namespace mxu::train {

// One curve: y[i] is the value at epoch i + 1. NaN and infinite values are left out (a gap in
// the line); a lone point is drawn as a dot; an empty y draws nothing but keeps its legend entry.
using Series = plot::Series;

// The size of the image WriteCurvesPng writes.
inline constexpr int kCurvesPngWidth = 900;
inline constexpr int kCurvesPngHeight = 360;

// The chart: title on top, then two panels side by side, loss per epoch on the left (panel 0)
// and accuracy per epoch on the right (panel 1). Accuracy values are fractions in [0, 1], drawn
// as percent. The x axis is the epoch, 1 to the longest series' length. Series with the same
// index in loss and accuracy get the same colour (plot::SeriesColour(index)).
plot::Figure CurvesFigure(const std::string& title, const std::vector<Series>& loss,
                          const std::vector<Series>& accuracy);

// Writes CurvesFigure(...) as a kCurvesPngWidth x kCurvesPngHeight PNG to path. Throws
// std::runtime_error naming path if the file cannot be written.
void WriteCurvesPng(const std::string& path, const std::string& title,
                    const std::vector<Series>& loss, const std::vector<Series>& accuracy);

}  // namespace mxu::train

#endif  // MXU_TRAIN_DATA_CURVES_PLOT_H_
