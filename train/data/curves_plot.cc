#include "train/data/curves_plot.h"

namespace mxu::train {

plot::Figure CurvesFigure(const std::string& title, const std::vector<Series>& loss,
                          const std::vector<Series>& accuracy) {
  plot::Figure figure(kCurvesPngWidth, kCurvesPngHeight, title);
  plot::LineChart loss_chart;
  loss_chart.title = "loss";
  loss_chart.x_label = "epoch";
  loss_chart.series = loss;
  loss_chart.integer_x = true;
  figure.Add(std::move(loss_chart));
  plot::LineChart accuracy_chart;
  accuracy_chart.title = "accuracy";
  accuracy_chart.x_label = "epoch";
  accuracy_chart.series = accuracy;
  accuracy_chart.integer_x = true;
  accuracy_chart.percent = true;
  figure.Add(std::move(accuracy_chart));
  return figure;
}

void WriteCurvesPng(const std::string& path, const std::string& title,
                    const std::vector<Series>& loss, const std::vector<Series>& accuracy) {
  CurvesFigure(title, loss, accuracy).WritePng(path);
}

}  // namespace mxu::train
