import { init, use } from "echarts/core";
import { BarChart, LineChart } from "echarts/charts";
import { GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, TitleComponent } from "echarts/components";
import { SVGRenderer } from "echarts/renderers";
use([BarChart, LineChart, GridComponent, LegendComponent, MarkAreaComponent, MarkLineComponent, TitleComponent, SVGRenderer]);
const c = init(null, null, { renderer: "svg", ssr: true, width: 300, height: 200 });
c.setOption({ xAxis: { type: "value" }, yAxis: {}, series: [{ type: "line", data: [[0, 1], [2, 3]] }] });
console.log(c.renderToSVGString().length);
