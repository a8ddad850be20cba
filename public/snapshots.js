// /snapshots, live (issue 34). The page is rendered by the server alone (no wasm: a Leptos route
// would grow the wasm every page shares). A snapshot's arrival publishes `breakpoints_changed`
// on /api/live; this fetches the list again from the server, which escapes everything in it
// (the data comes from debugged programs), and swaps it in. Nothing here builds markup itself.
(() => {
  const list = document.getElementById("snapshot-list");
  if (!list || !window.EventSource) return;
  const url = list.dataset.fragment;
  let busy = false;
  let again = false;

  // One fetch at a time; changes that arrive meanwhile cost one more fetch, not one each.
  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
      if (response.ok) list.innerHTML = await response.text();
    } catch (_) {
      // The server is away; the stream's reconnect refreshes once it is back.
    } finally {
      busy = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  const events = new EventSource("/api/live");
  events.onmessage = (event) => {
    let kind = "";
    try {
      kind = JSON.parse(event.data).type;
    } catch (_) {
      return;
    }
    // `lagged`: this page missed events, so it may have missed a snapshot.
    if (kind === "breakpoints_changed" || kind === "lagged") refresh();
  };
  // A reconnect may have missed events (and the page may be older than the stream).
  events.onopen = refresh;
  // Tests wait for this before expecting live updates.
  events.addEventListener("open", () => list.setAttribute("data-live", ""), { once: true });
})();
