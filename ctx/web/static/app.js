// ctx ui: the only script. Pages work without it; it adds a confirmation before a
// destructive form (data-confirm) is sent. No inline script anywhere (CSP script-src 'self').
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form && form.getAttribute && form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
