// The lines a child process writes (its stderr), and a promise for the first that matches: the
// gateway tests wait on what the gateway says ("memory: up", "sign-in needed: ...") rather than
// on time. A wait is bounded by the test's timeout.
export function lineWatch(stream) {
  const lines = [];
  const waiters = [];
  stream.on("data", (d) => {
    for (const l of d.toString().split("\n")) if (l) lines.push(l);
    for (const w of [...waiters]) if (w()) waiters.splice(waiters.indexOf(w), 1);
  });
  return {
    lines,
    // resolves with the count-th line matching re
    until: (re, count = 1) =>
      new Promise((resolve) => {
        const w = () => {
          const hits = lines.filter((l) => re.test(l));
          return hits.length >= count && (resolve(hits[count - 1]), true);
        };
        if (!w()) waiters.push(w);
      }),
  };
}
