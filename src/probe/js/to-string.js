// ---- Function.prototype.toString: wrappers read as the functions they stand for ------------

// Another realm's probe (a same-origin iframe's, reading this window's functions through its own
// Function.prototype.toString) asks this one for the source its wrappers show: it calls this
// realm's toString with the recording's token (`config.realmToken`, random per recording), and
// the answer is the source, or the token itself for a function that is not a wrapper here.
const REALM_TOKEN = typeof config.realmToken === "string" ? config.realmToken : null;
// What this realm's toString reads of another realm's Proxy: the other probe's toString.
const PROXY_SOURCE = "function () { [native code] }";
function foreignSource(f) {
  if (REALM_TOKEN === null || typeof f !== "function") return undefined;
  let other;
  try {
    // The other realm's Function.prototype.toString, found up the chain (an interface's
    // constructor inherits from its parent interface's: HTMLElement from Element).
    let p = getProto(f);
    let d;
    for (let i = 0; p !== null && i < 64; i++) {
      if (p === functionProto) return undefined;
      d = gopd(p, "toString");
      if (d !== undefined) break;
      p = getProto(p);
    }
    other = d !== undefined ? d.value : undefined;
    // Only the other probe's own toString is asked (a page's function never runs): it is a
    // Proxy, whose text, read from here, has no name.
    if (typeof other !== "function" || apply(fnToString, other, []) !== PROXY_SOURCE) return undefined;
    const answer = apply(other, f, [REALM_TOKEN]);
    return typeof answer === "string" && answer !== REALM_TOKEN ? answer : undefined;
  } catch (_) {
    return undefined;
  }
}

function patchToString(functionPrototype) {
  const d = gopd(functionPrototype, "toString");
  if (!d || typeof d.value !== "function" || !d.configurable) return;
  const original = d.value;
  const proxy = new ProxyC(original, handlerOf({
    apply: function (target, thisArg, args) {
      if (REALM_TOKEN !== null && args.length === 1 && args[0] === REALM_TOKEN) {
        const mine = sourceText(thisArg);
        return typeof mine === "string" ? mine : REALM_TOKEN;
      }
      const known = sourceText(thisArg);
      if (typeof known === "string") return known;
      const foreign = foreignSource(thisArg);
      if (foreign !== undefined) return foreign;
      return apply(target, thisArg, args);
    },
  }));
  disguise(proxy, original);
  defineProperty(functionPrototype, "toString", { value: proxy, writable: d.writable, enumerable: d.enumerable, configurable: true });
}

