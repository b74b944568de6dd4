// Small enhancements on top of pages that work without JavaScript.
"use strict";

// Upload progress: forms marked data-upload-progress show a bar while htmx sends their files.
document.addEventListener("htmx:xhr:progress", (event) => {
  const form = event.target.closest("[data-upload-progress]");
  const bar = form && form.querySelector(".upload-progress");
  if (!bar || !event.detail.lengthComputable) return;
  bar.hidden = false;
  bar.value = Math.round((event.detail.loaded / event.detail.total) * 100);
});

// A change made through htmx announces itself where the page's messages are.
function announce(event) {
  const region = document.getElementById("messages");
  if (!region || !event.detail || !event.detail.notice) return;
  const message = document.createElement("p");
  message.className = "message success";
  message.textContent = event.detail.notice;
  region.replaceChildren(message);
}
document.body.addEventListener("claim-changed", announce);
document.body.addEventListener("tender-changed", announce);
document.body.addEventListener("follow-changed", announce);

// On a phone the search's filters start folded unless one is set: the results come first.
const foldable = document.querySelector("details[data-fold-on-phone]");
if (foldable && !("set" in foldable.dataset) && window.matchMedia("(max-width: 48rem)").matches) {
  foldable.open = false;
}
