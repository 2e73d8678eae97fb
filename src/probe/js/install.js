// ---- install ------------------------------------------------------------------------------

const apis = config.apis;
const installStarted = epoch();
let failed = 0;
for (let i = 0; i < apis.length; i++) {
  try {
    install(apis[i]);
  } catch (_) {
    failed++;
  }
}
if (WALK) {
  walking = true;
  try {
    walkGlobal();
  } finally {
    walking = false;
  }
}
for (let i = 0; i < excludeList.length; i++) {
  if (includes(ASKED, excludeList[i]) && resolve(excludeList[i]) === null) missing[missing.length] = excludeList[i];
}
watchSingletonOwnMembers();
watchMarks();
patchDescriptors();
patchToString(Function.prototype);
for (let i = 0; i < foreignFunctionProtos.length; i++) patchToString(foreignFunctionProtos[i]);
post({ k: "ready", realm: realm, wrapped: wrapped, failed: failed, missing: missing, ms: epoch() - installStarted,
  absent: absent, unwatched: unwatchedPaths(), shared: sharedPaths });
sendBatch();
