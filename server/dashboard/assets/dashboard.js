// Progressive enhancement: the pages work without this file; it draws the charts (uPlot, served
// from its npm package) and, inside the Shopify admin, puts a fresh session token on each navigation.
(function () {
  'use strict';

  function chartWidth(box) {
    return Math.max(260, box.clientWidth - 8);
  }

  // An axis as wide as its longest label (large yen amounts need more than uPlot's default 50 px).
  function axisSize(u, values) {
    if (!values) return 50;
    var longest = values.reduce(function (n, v) { return Math.max(n, String(v).length); }, 0);
    return Math.max(50, longest * 7 + 24);
  }

  function revenueLabel(data) {
    return data.currency ? 'Revenue (' + data.currency + ')' : 'Revenue';
  }

  function dailyChart(box, data) {
    var x = data.days.map(function (day) { return Date.parse(day + 'T00:00:00Z') / 1000; });
    return new uPlot({
      width: chartWidth(box),
      height: 260,
      // The legend names the series; a live one printed "Time: --" while nothing was hovered (the table below has every figure).
      legend: { live: false },
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: {
        x: { time: true },
        money: { range: function (u, min, max) { return [0, Math.max(1, max) * 1.1]; } },
        count: { range: function (u, min, max) { return [0, Math.max(1, max)]; } },
      },
      series: [
        {},
        { label: revenueLabel(data), stroke: '#0b5cad', width: 2, fill: 'rgba(11,92,173,0.08)', scale: 'money' },
        { label: 'Conversions', stroke: '#c05621', width: 2, scale: 'count' },
      ],
      axes: [{}, { scale: 'money', size: axisSize }, { scale: 'count', side: 1, grid: { show: false }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000] }],
    }, [x, data.revenue, data.conversions], box);
  }

  function barsChart(box, data) {
    var x = data.labels.map(function (_, i) { return i; });
    return new uPlot({
      width: chartWidth(box),
      height: 260,
      legend: { live: false },
      scales: {
        x: { time: false, range: function () { return [-0.6, data.labels.length - 0.4]; } },
        y: { range: function (u, min, max) { return [0, Math.max(1, max) * 1.1]; } },
      },
      series: [
        { value: function (u, i) { return data.labels[i] == null ? '' : data.labels[i]; } },
        { label: revenueLabel(data), stroke: '#0b5cad', fill: 'rgba(11,92,173,0.5)', paths: uPlot.paths.bars({ size: [0.6, 60] }), points: { show: false } },
      ],
      axes: [
        { values: function (u, splits) { return splits.map(function (i) { var label = data.labels[i]; return label == null ? '' : String(label).slice(0, 14); }); }, incrs: [1] },
        { size: axisSize },
      ],
    }, [x, data.revenue], box);
  }

  function drawCharts() {
    if (typeof uPlot === 'undefined') return;
    document.querySelectorAll('[data-chart]').forEach(function (box) {
      var source = document.getElementById(box.getAttribute('data-chart'));
      if (!source) return;
      var data = JSON.parse(source.textContent);
      if ((data.days || data.labels).length === 0) return;
      var plot = data.kind === 'bars' ? barsChart(box, data) : dailyChart(box, data);
      window.addEventListener('resize', function () { plot.setSize({ width: chartWidth(box), height: 260 }); });
    });
  }

  // Inside the Shopify admin there is no cookie: every page load carries a fresh session token
  // from App Bridge (tokens live one minute), so links and GET forms are followed with one.
  function embeddedNavigation() {
    if (document.body.getAttribute('data-embedded') !== 'true' || !window.shopify || !window.shopify.idToken) return;
    function go(url) {
      window.shopify.idToken().then(function (token) {
        url.searchParams.set('id_token', token);
        window.location.assign(url.toString());
      });
    }
    document.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('a[href]');
      if (!link || link.origin !== window.location.origin || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      go(new URL(link.href));
    });
    document.addEventListener('submit', function (event) {
      var form = event.target;
      if ((form.getAttribute('method') || 'get').toLowerCase() !== 'get') {
        // A POST form (a decision, an endpoint): its action carries a fresh token, its body stays a form.
        event.preventDefault();
        window.shopify.idToken().then(function (token) {
          var action = new URL(form.getAttribute('action') || window.location.pathname, window.location.href);
          action.searchParams.set('id_token', token);
          form.setAttribute('action', action.toString());
          form.submit();
        });
        return;
      }
      event.preventDefault();
      var url = new URL(form.getAttribute('action') || window.location.pathname, window.location.href);
      new FormData(form).forEach(function (value, name) { if (name !== 'id_token') url.searchParams.append(name, value); });
      go(url);
    });
  }

  // Inside the Shopify admin a page cannot reload itself (its session token lasts a minute): an
  // import's progress page reloads with a fresh token every 2 s while the import runs.
  function reloadWhileRunning() {
    var status = document.querySelector('[data-reload-while-running]');
    if (!status || document.body.getAttribute('data-embedded') !== 'true' || !window.shopify || !window.shopify.idToken) return;
    setTimeout(function () {
      window.shopify.idToken().then(function (token) {
        var url = new URL(status.getAttribute('data-reload-while-running'), window.location.href);
        url.searchParams.set('id_token', token);
        window.location.replace(url.toString());
      });
    }, 2000);
  }

  // On a phone a table is shown as cards (dashboard.css): each cell is labelled with its column's header.
  function labelTableCells() {
    document.querySelectorAll('table').forEach(function (table) {
      var headers = Array.prototype.map.call(table.querySelectorAll('thead th'), function (th) { return th.textContent.trim(); });
      if (headers.length === 0) return;
      table.classList.add('labelled');
      table.querySelectorAll('tbody tr').forEach(function (row) {
        Array.prototype.forEach.call(row.children, function (cell, at) {
          if (headers[at] && !cell.hasAttribute('data-label') && !cell.hasAttribute('colspan')) cell.setAttribute('data-label', headers[at]);
        });
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    labelTableCells();
    drawCharts();
    embeddedNavigation();
    reloadWhileRunning();
  });
})();
