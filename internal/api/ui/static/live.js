// Reloads a page that shows a turn running, every data-refresh seconds,
// unless the reader is typing in it.
(function () {
  var s = Number(document.body.dataset.refresh || 0);
  if (!s) return;
  setTimeout(function () {
    var a = document.activeElement;
    if (a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA")) return;
    location.reload();
  }, s * 1000);
})();
