// The script `examples/record/page.html` loads. Each block touches one family the probe watches.
performance.mark("tracer:phase=init");
const ua = navigator.userAgent;
const width = screen.width;
document.cookie = "seen=1";
const cookie = document.cookie;

const canvas = document.createElement("canvas");
document.body.appendChild(canvas);
const ctx = canvas.getContext("2d");
ctx.fillText("tracer", 2, 10);
const pixels = canvas.toDataURL();

performance.mark("tracer:phase=requests");
const xhr = new XMLHttpRequest();
xhr.onreadystatechange = () => {};
xhr.open("GET", "data:text/plain,hello");
xhr.send();

const worker = new Worker(URL.createObjectURL(new Blob(
  ["postMessage(navigator.hardwareConcurrency > 0);"], { type: "text/javascript" })));
const channel = new MessageChannel();
channel.port1.postMessage("ping");

fetch("data:application/json,{}")
  .then((response) => response.json())
  .finally(() => {
    worker.onmessage = () => performance.mark("tracer:done");
  });
