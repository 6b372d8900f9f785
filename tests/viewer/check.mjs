// Loads a page of `bmad-mem view` in headless Chromium and checks it through the DevTools
// protocol, spoken over Chromium's debugging pipe (file descriptors 3 and 4, one JSON message
// per NUL-terminated chunk), so that no WebSocket client and no npm package is needed:
//
// * the page's script ran under its own Content-Security-Policy (it marks the document ready);
// * the DOM holds exactly the counts the commands give: decisions in force (`status --json`),
//   pending candidates (`admit --list --json`), receipts by status (`outcomes --json`) — as
//   numbers and as items listed;
// * a query typed into the search box hides every item that does not hold it and shows those
//   that do; the timeline's agent filter keeps that agent's items only; "Show more" shows more;
// * at a phone's width nothing overflows the page; the dark scheme applies;
// * no console error, no exception, no CSP report, no request but the page itself.
//
// Usage: node check.mjs <chromium> <page.html> <status.json> <outcomes.json> <admit.json>
//        [screenshot.png]

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [chromium, page, statusFile, outcomesFile, admitFile, screenshot] = process.argv.slice(2);
const read = (file) => JSON.parse(readFileSync(file, "utf8"));

/// What the commands count, as the page must show it (lists are capped at 500 items).
function expectation() {
  const status = read(statusFile);
  const outcomes = read(outcomesFile);
  const admit = read(admitFile);
  const inForce = status.notes.reduce((sum, note) => sum + (note.active ?? 0), 0);
  const counts = {
    "decisions-in-force": inForce,
    "summary-in-force": inForce,
    candidates: admit.count,
    "summary-candidates": admit.count,
    receipts: outcomes.count,
    "summary-receipts": outcomes.count,
  };
  for (const name of ["accepted-current", "superseded", "contradictory", "stale-memory-section", "stale-outcome-source", "unavailable-or-ineligible-source"]) {
    counts[`receipts-${name}`] = 0;
  }
  for (const receipt of outcomes.results) {
    const name = receipt.reason === null ? "accepted-current" : receipt.reason.split(": ")[0];
    counts[`receipts-${name}`]++;
  }
  const items = {
    "decisions-in-force": Math.min(inForce, 500),
    "candidates-list": Math.min(admit.count, 500),
    "receipts-list": outcomes.count,
  };
  return { counts, items };
}
const expected = expectation();
const url = "file://" + page;
const profile = mkdtempSync(join(tmpdir(), "bmad-mem-view-"));
const browser = spawn(
  chromium,
  [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--remote-debugging-pipe",
    `--user-data-dir=${profile}`,
    "about:blank",
  ],
  // Its own process group, so that its helpers (zygote, renderers) end with it.
  { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"], detached: true },
);
const toBrowser = browser.stdio[3];
const fromBrowser = browser.stdio[4];

let lastId = 0;
const pending = new Map();
const problems = [];
const requests = [];
let onEvent = () => {};

let buffer = "";
fromBrowser.on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  for (let end = buffer.indexOf("\0"); end !== -1; end = buffer.indexOf("\0")) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id !== undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) {
        waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
      } else {
        waiting.resolve(message.result);
      }
    } else {
      onEvent(message);
    }
  }
});

function send(method, params = {}, sessionId = undefined) {
  const id = ++lastId;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  toBrowser.write(JSON.stringify(message) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failures = 0;
function check(ok, what) {
  if (ok) {
    console.log(`ok - ${what}`);
  } else {
    failures++;
    console.log(`not ok - ${what}`);
  }
}

async function main() {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const call = (method, params) => send(method, params, sessionId);
  let loaded;
  const load = new Promise((r) => (loaded = r));
  onEvent = (m) => {
    if (m.sessionId !== sessionId) return;
    switch (m.method) {
      case "Runtime.consoleAPICalled":
        if (m.params.type === "error" || m.params.type === "warning" || m.params.type === "assert") {
          problems.push(`console ${m.params.type}: ${JSON.stringify(m.params.args.map((a) => a.value ?? a.description))}`);
        }
        break;
      case "Runtime.exceptionThrown":
        problems.push(`exception: ${m.params.exceptionDetails.text} ${m.params.exceptionDetails.exception?.description ?? ""}`);
        break;
      case "Log.entryAdded":
        if (m.params.entry.level === "error" || m.params.entry.level === "warning") {
          problems.push(`log ${m.params.entry.level} (${m.params.entry.source}): ${m.params.entry.text}`);
        }
        break;
      case "Network.requestWillBeSent":
        requests.push(m.params.request.url);
        break;
      case "Page.loadEventFired":
        loaded();
        break;
    }
  };
  for (const domain of ["Runtime", "Log", "Network", "Page"]) {
    await call(`${domain}.enable`);
  }
  await call("Emulation.setDeviceMetricsOverride", { width: 1000, height: 1400, deviceScaleFactor: 1, mobile: false });
  await call("Page.navigate", { url });
  await load;
  const evaluate = async (expression) => {
    const { result, exceptionDetails } = await call("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.text}`);
    return result.value;
  };
  const timing = await evaluate(`(() => {
    const t = performance.getEntriesByType('navigation')[0];
    return { ready: Math.round(t.domContentLoadedEventEnd), load: Math.round(t.loadEventEnd), bytes: t.decodedBodySize };
  })()`);
  console.log(`# ${timing.bytes} bytes; DOMContentLoaded after ${timing.ready} ms, load after ${timing.load} ms`);
  const ready = await evaluate("document.documentElement.getAttribute('data-ready')");
  check(ready === "true", "the page's script ran under its own Content-Security-Policy");

  // The counts, as numbers and as items.
  const dom = await evaluate(`(() => {
    const counts = {};
    for (const el of document.querySelectorAll('[data-count]')) counts[el.getAttribute('data-count')] = Number(el.textContent);
    const items = {};
    for (const list of document.querySelectorAll('[data-list]')) items[list.id] = list.querySelectorAll(':scope > li.item').length;
    return { counts, items };
  })()`);
  for (const [key, want] of Object.entries(expected.counts)) {
    check(dom.counts[key] === want, `count ${key}: page ${dom.counts[key]}, commands ${want}`);
  }
  for (const [list, want] of Object.entries(expected.items)) {
    check(dom.items[list] === want, `items listed in ${list}: page ${dom.items[list]}, commands ${want}`);
  }

  // A typed query filters every section.
  const visible = `(() => [...document.querySelectorAll('[data-list] > li.item')].filter((el) => !el.hidden))()`;
  const word = await evaluate(`(() => {
    const title = document.querySelector('[data-list] > li.item h4, [data-list] > li.item .title');
    const words = (title ? title.textContent : '').split(/[^\\p{L}\\p{N}]+/u).filter((w) => w.length > 3);
    return words.sort((a, b) => b.length - a.length)[0] || '';
  })()`);
  check(word.length > 0, `a query word taken from the page: "${word}"`);
  const before = await evaluate(`${visible}.length`);
  const first = await evaluate(`(() => {
    const q = document.getElementById('q');
    const form = document.getElementById('search');
    q.value = ${JSON.stringify(word)};
    const start = performance.now();
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    const took = Math.round(performance.now() - start);
    q.value = '';
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    return took;
  })()`);
  await evaluate("document.getElementById('q').focus()");
  await call("Input.insertText", { text: word });
  await sleep(400);
  const after = await evaluate(`(() => {
    const word = ${JSON.stringify(word.toLowerCase())};
    const all = [...document.querySelectorAll('[data-list] > li.item')];
    const shown = all.filter((el) => !el.hidden);
    const holding = all.filter((el) => el.textContent.toLowerCase().includes(word));
    return {
      shown: shown.length,
      allHold: shown.every((el) => el.textContent.toLowerCase().includes(word)),
      holding: holding.length,
      found: document.getElementById('q-found').textContent,
    };
  })()`);
  check(after.shown > 0 && after.allHold, `typing "${word}" shows ${after.shown} item(s), each holding it`);
  check(after.shown < before || after.holding === before, `the query hides what does not hold it (${before} → ${after.shown})`);
  check(after.found === `${after.holding} item(s) match`, `the search says how many match: "${after.found}"`);
  const again = await evaluate(`(() => {
    const form = document.getElementById('search');
    const start = performance.now();
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    return Math.round(performance.now() - start);
  })()`);
  console.log(`# filtering every list: ${first} ms the first time (each item's text read once), ${again} ms after`);
  // Cleared, every list shows its first page again.
  await evaluate("(() => { const q = document.getElementById('q'); q.value = ''; q.dispatchEvent(new Event('input')); })()");
  await sleep(400);
  check((await evaluate(`${visible}.length`)) === before, "clearing the query shows the first pages again");

  // The timeline's agent filter.
  const agentCheck = await evaluate(`(() => {
    const select = document.getElementById('f-agent');
    if (select.options.length < 2) return { skipped: true };
    select.value = select.options[1].value;
    select.dispatchEvent(new Event('change'));
    const items = [...document.querySelectorAll('#timeline-list > li.item')];
    const shown = items.filter((el) => !el.hidden);
    const ok = shown.length > 0 && shown.every((el) => el.getAttribute('data-agent') === select.value);
    select.value = '';
    select.dispatchEvent(new Event('change'));
    return { ok, agent: select.options[1].value, shown: shown.length };
  })()`);
  if (!agentCheck.skipped) {
    check(agentCheck.ok, `the agent filter keeps "${agentCheck.agent}"'s ${agentCheck.shown} moment(s) only`);
  }

  // "Show more" shows the next page of a long list.
  const more = await evaluate(`(() => {
    for (const list of document.querySelectorAll('[data-list]')) {
      const button = list.parentNode.querySelector('#' + list.id + ' ~ .more');
      if (button && !button.hidden) {
        const count = () => [...list.children].filter((el) => !el.hidden).length;
        const before = count();
        button.click();
        return { list: list.id, before, after: count() };
      }
    }
    return null;
  })()`);
  if (more) {
    check(more.after > more.before, `"Show more" in ${more.list}: ${more.before} → ${more.after}`);
  }

  if (screenshot) {
    await evaluate("document.activeElement.blur(); window.scrollTo(0, 0)");
    const shot = await call("Page.captureScreenshot", { format: "png", clip: { x: 0, y: 0, width: 1000, height: 1400, scale: 0.8 } });
    writeFileSync(screenshot, Buffer.from(shot.data, "base64"));
  }

  // A phone's width: nothing wider than the screen but the drawings' own scroll boxes.
  await call("Emulation.setDeviceMetricsOverride", { width: 360, height: 740, deviceScaleFactor: 2, mobile: true });
  await sleep(200);
  const width = await evaluate("document.documentElement.scrollWidth");
  check(width <= 360, `at a phone's width the page is ${width} px wide`);

  // The dark scheme.
  await call("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: "dark" }] });
  const dark = await evaluate("getComputedStyle(document.body).backgroundColor");
  check(dark === "rgb(13, 17, 23)", `the dark scheme applies (${dark})`);

  await sleep(200);
  check(problems.length === 0, `no console error, exception or CSP report${problems.length ? ":\n  " + problems.join("\n  ") : ""}`);
  const foreign = requests.filter((r) => r !== url);
  check(foreign.length === 0, `no request but the page itself${foreign.length ? ": " + foreign.join(", ") : ""}`);
}

const timeout = setTimeout(() => {
  console.log("not ok - timed out");
  try {
    process.kill(-browser.pid, "SIGKILL");
  } catch {}
  process.exit(1);
}, 60000);
main()
  .catch((e) => {
    failures++;
    console.log(`not ok - ${e.message}`);
  })
  .finally(async () => {
    clearTimeout(timeout);
    try {
      await Promise.race([send("Browser.close"), sleep(2000)]);
    } catch {}
    // The profile is removed once the browser is gone (it writes there until it exits).
    const gone = new Promise((r) => browser.once("exit", r));
    try {
      process.kill(-browser.pid, "SIGKILL");
    } catch {}
    await Promise.race([gone, sleep(5000)]);
    await sleep(100);
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    } catch (e) {
      console.error(`# the browser profile ${profile} is left behind: ${e.message}`);
    }
    process.exit(failures ? 1 : 0);
  });
