// ---- phases and the end marker -------------------------------------------------------------

const PHASE = "tracer:phase=";
// The holder of `performance.mark`: the realm's Performance.prototype, else wherever its
// `performance` finds it (happy-dom's window hands out Node's own `performance`).
const markProto = typeof g.Performance === "function" ? g.Performance.prototype
  : (perf && typeof perf === "object" ? M.findHolder(perf, "mark") : null);
const markOriginal = markProto && gopd(markProto, "mark") ? gopd(markProto, "mark").value : null;
// Runs after the API table is installed: `target` is then the recording wrapper (when Performance
// is watched) and phase markers bypass it to reach the original.
function watchMarks() {
  if (typeof markOriginal !== "function") return;
  const proto = markProto;
  const d = gopd(proto, "mark");
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const inner = d.value;
  // Phase markers are instrumentation, not accesses: they set the phase and are not recorded.
  const proxy = disguise(new ProxyC(inner, handlerOf({
    apply: function (target, thisArg, args) {
      const name = args[0];
      if (startsWith(name, PHASE)) {
        phase = apply(strSlice, name, [PHASE.length]) || "init";
        return apply(markOriginal, thisArg, args);
      }
      if (name === "tracer:done") {
        const result = apply(markOriginal, thisArg, args);
        finish({ k: "done", ls: nextLocal++, e: epoch(), realm: realm });
        sendBatch();
        return result;
      }
      return apply(target, thisArg, args);
    },
  })), markOriginal);
  defineProperty(proto, "mark", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

