// Draws report.html's charts with the inlined ECharts, from the specifications in the
// #report-data element (ChartSpecs): the same axes, legend, tooltips and colours for every chart.
(function () {
  'use strict';
  var PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];

  function escape(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  // Clock times in UTC, as the tables hold them, whatever the reader's time zone.
  function utc(ms) {
    var d = new Date(ms);
    return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' +
      pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds());
  }
  function number(v) {
    if (v === null || v === undefined || !isFinite(v)) { return '–'; }
    return Number(v).toLocaleString('en-US', { maximumFractionDigits: 2 });
  }
  // Axis labels: 1,500 / 12K / 3.4M rather than 1500 or 3400000.
  function compact(v) {
    var a = Math.abs(v);
    if (a >= 1e6) { return (v / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 }) + 'M'; }
    if (a >= 1e4) { return (v / 1e3).toLocaleString('en-US', { maximumFractionDigits: 1 }) + 'K'; }
    return v.toLocaleString('en-US', { maximumFractionDigits: 2 });
  }

  function margin(extent) { return Math.max((extent.max - extent.min) / 10, 5 * 60 * 1000); }

  function axis(spec, position) {
    var a = {
      name: spec.name,
      nameLocation: 'middle',
      nameGap: position === 'x' ? 30 : 52,
      nameTextStyle: { color: '#444', fontSize: 12 },
      axisLabel: { color: '#555', hideOverlap: true },
      splitLine: { show: position === 'y', lineStyle: { color: '#eee' } }
    };
    if (spec.kind === 'category') {
      a.type = 'category';
      a.data = spec.categories;
      a.axisTick = { alignWithLabel: true };
    } else if (spec.kind === 'time') {
      a.type = 'time';
      a.scale = true;
      a.axisLabel.formatter = { year: '{yyyy}-{MM}-{dd}', month: '{MM}-{dd}', day: '{MM}-{dd}', hour: '{HH}:{mm}',
        minute: '{HH}:{mm}', second: '{HH}:{mm}:{ss}', millisecond: '{HH}:{mm}:{ss}' };
      if (position === 'y') {
        // A watermark that moved little (or not at all) gets a range of minutes around it, not
        // days: a tenth of its span on each side, five minutes at least.
        a.min = function (v) { return v.min - margin(v); };
        a.max = function (v) { return v.max + margin(v); };
      }
    } else {
      a.type = 'value';
      a.minInterval = spec.integer ? 1 : 0;
      a.axisLabel.formatter = compact;
    }
    return a;
  }

  function tooltip(spec) {
    return {
      trigger: 'axis',
      confine: true,
      axisPointer: { type: spec.x.kind === 'category' ? 'shadow' : 'line' },
      formatter: function (params) {
        var first = params[0];
        var head = spec.x.kind === 'category'
          ? 'batch ' + first.axisValue
          : (spec.x.kind === 'time' ? utc(first.value[0]) + ' UTC' : first.axisValue);
        return '<b>' + escape(head) + '</b>' + params.map(function (p) {
          var v = Array.isArray(p.value) ? p.value[1] : p.value;
          var shown = spec.y.kind === 'time' ? utc(v) + ' UTC' : number(v);
          return '<br>' + p.marker + escape(p.seriesName) + ': <b>' + escape(shown) + '</b>';
        }).join('');
      }
    };
  }

  function option(spec) {
    var legend = spec.series.length > 1;
    var manyPoints = spec.series.some(function (s) { return s.data.length > 60; });
    return {
      useUTC: true,
      animation: false,
      color: PALETTE,
      textStyle: { fontFamily: 'system-ui, sans-serif' },
      // The legend above the plot, never over it; the axis titles outside the labels.
      legend: legend ? { top: 0, left: 'center', type: 'scroll', itemWidth: 14, itemHeight: 10 }
        : { show: false },
      grid: { left: 70, right: 24, top: legend ? 36 : 14, bottom: 46 },
      tooltip: tooltip(spec),
      xAxis: axis(spec.x, 'x'),
      yAxis: axis(spec.y, 'y'),
      series: spec.series.map(function (s) {
        var out = { name: s.name, type: s.type, data: s.data };
        if (s.type === 'bar') {
          out.barMaxWidth = 36;
          out.barGap = '10%';
        } else {
          out.showSymbol = !manyPoints;
          out.symbolSize = 5;
          out.lineStyle = { width: 1.6 };
        }
        return out;
      })
    };
  }

  var data = JSON.parse(document.getElementById('report-data').textContent);
  data.charts.forEach(function (spec) {
    var element = document.getElementById(spec.id);
    var chart = echarts.init(element, null, { renderer: 'svg' });
    chart.setOption(option(spec));
    element.setAttribute('data-rendered', 'true');
  });
})();
