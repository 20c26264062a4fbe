// The calendard explorer: plain JavaScript, no framework and no build step. It calls only this
// service's public API, and every view shows the route it called, so that a front-end developer learns
// the API by using it.
"use strict";

// The namespace and the routes this page calls, in the form of the API's /doc. A Go test checks each
// against the router (handlers/explore_test.go): a renamed route breaks a test, not this page.
const NAMESPACE = "/calendar/events/v1";
const ROUTES = {
  events: "/events",
  event: "/events/{id}",
  categories: "/categories",
  venues: "/venues",
  search: "/search",
};

// Typing waits this long for the next key before it searches; a newer search cancels an older one.
const DEBOUNCE_MS = 250;
// The month grid asks for one page of the API's largest size.
const MONTH_PAGE = 100;
const LOG_LENGTH = 30;
// The list asks for the counts the filters show beside their choices (docs/API.md "Facets"), each
// kind's FACET_LIMIT largest (the API's default limit).
const FACETS = "categories,venue,month";
const FACET_LIMIT = 100;
// The suggestions ask for this many matches of each kind.
const SUGGEST_PER_TYPE = 5;

const $ = (id) => document.getElementById(id);

// credentials is the Basic value of the application password typed in: in this page's memory only.
let credentials = "";

const list = { page: 1, pages: 0, ctl: null, timer: 0, facets: {} };
const month = { first: firstOfMonth(new Date()), ctl: null };
const suggest = { ctl: null, timer: 0, options: [], active: -1 };
let view = "list";

// ApiError is an answer other than 2xx, with the API's error envelope when it sent one.
class ApiError extends Error {
  constructor(status, body) {
    const env = body && typeof body === "object" ? body : {};
    super(`${status} ${env.code || "error"}: ${env.message || "the API answered without a message"}`);
    this.status = status;
    this.body = env;
  }
}

// path builds the route's path under the selected language's prefix (docs/API.md "Routes"), with its query.
function path(route, vars, params) {
  const lang = $("lang").value;
  const tmpl = ROUTES[route].replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(vars[k]));
  const query = new URLSearchParams(params).toString();
  return (lang ? "/" + lang : "") + NAMESPACE + tmpl + (query ? "?" + query : "");
}

// call fetches one route and reports the route, the status and the time the answer took where
// routeEl says, and in the log. "omit" keeps the browser's own cached credentials (and its password
// prompt) out: only the password typed in is sent.
async function call(url, signal, routeEl) {
  const headers = { Accept: "application/json" };
  if (credentials) headers.Authorization = "Basic " + credentials;
  const start = performance.now();
  let res;
  try {
    res = await fetch(url, { headers, signal, credentials: "omit", cache: "no-store" });
  } catch (err) {
    if (err.name !== "AbortError") showRoute(routeEl, url, "failed", 0);
    throw err;
  }
  let body = null;
  try {
    body = await res.json();
  } catch (err) {
    // A newer call cancelled this one while its body arrived; any other failure is a body that is not
    // JSON, which the caller reports by its status.
    if (err.name === "AbortError") throw err;
  }
  const ms = Math.round(performance.now() - start);
  showRoute(routeEl, url, res.status, ms);
  logCall(url, res.status, ms);
  if (!res.ok) throw new ApiError(res.status, body);
  return { body, headers: res.headers, ms };
}

function showRoute(el, url, status, ms) {
  if (!el) return;
  const link = document.createElement("a");
  link.href = url;
  link.textContent = url;
  el.replaceChildren("GET ", link, ` → ${status}` + (ms ? ` in ${ms} ms` : ""));
}

function logCall(url, status, ms) {
  const li = document.createElement("li");
  const code = document.createElement("code");
  code.textContent = "GET " + url;
  li.append(code, ` → ${status} in ${ms} ms`);
  const log = $("log");
  log.prepend(li);
  while (log.children.length > LOG_LENGTH) log.lastElementChild.remove();
}

function showError(el, err) {
  el.classList.add("error");
  const lines = [err.message];
  const params = err.body && err.body.data && err.body.data.params;
  if (params && typeof params === "object") {
    for (const [k, v] of Object.entries(params)) lines.push(Array.isArray(params) ? v : `${k}: ${v}`);
  }
  el.textContent = lines.join(" · ");
}

function showStatus(el, text) {
  el.classList.remove("error");
  el.textContent = text;
}

// filterParams reads the filters as the events list's parameters (docs/API.md "Events list parameters"); an empty field sends
// nothing. A point with only one coordinate is sent as it is: the API's 400 says what is missing.
function filterParams({ dates = true } = {}) {
  const p = {};
  const search = $("q").value.trim();
  if (search) p.search = search;
  if (dates && $("start").value) p.start_date = $("start").value;
  if (dates && $("end").value) p.end_date = $("end").value;
  if ($("category").value) p.categories = $("category").value;
  if ($("venue").value) p.venue = $("venue").value;
  const lat = $("lat").value, lng = $("lng").value;
  if (lat || lng) {
    p.geoloc = 1;
    if (lat) p.geoloc_lat = lat;
    if (lng) p.geoloc_lng = lng;
    if ($("radius").value) p.geoloc_radius = $("radius").value;
  }
  return p;
}

// marked turns a highlighted text of the API (HTML-escaped text whose only markup is <mark> and
// </mark>, docs/API.md "Highlighted matches") into nodes. It builds them itself rather than trusting
// the string as HTML: whatever a title holds, nothing of it becomes markup here.
function marked(html) {
  const frag = document.createDocumentFragment();
  let inMark = false;
  for (const part of html.split(/(<mark>|<\/mark>)/)) {
    if (part === "<mark>" || part === "</mark>") {
      inMark = part === "<mark>";
      continue;
    }
    if (!part) continue;
    const text = document.createTextNode(decode(part));
    if (inMark) {
      const m = document.createElement("mark");
      m.append(text);
      frag.append(m);
    } else {
      frag.append(text);
    }
  }
  return frag;
}

// decode turns a text of the API with HTML entities (titles are WordPress's rendered text) into the
// text shown. A textarea's content is text to the parser: entities are decoded and tags stay as they
// are written, so nothing of a title ever becomes an element, even in a detached document.
function decode(html) {
  const t = document.createElement("textarea");
  t.innerHTML = html;
  return t.value;
}

function eventButton(ev, withDate) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "event";
  b.dataset.id = ev.id;
  const hl = ev.search_highlight || {};
  const title = document.createElement("strong");
  if (hl.title) title.append(marked(hl.title));
  else title.textContent = decode(ev.title || "(no title)");
  b.append(title);
  if (withDate) {
    const meta = [ev.start_date.slice(0, 16) + " " + (ev.timezone_abbr || "")];
    if (ev.venue && ev.venue.venue) meta.push(decode(ev.venue.venue));
    if (ev.distance_km !== undefined) meta.push(`${ev.distance_km} km`);
    const cats = (ev.categories || []).map((c) => decode(c.name)).join(", ");
    if (cats) meta.push(cats);
    const small = document.createElement("span");
    small.textContent = meta.join(" · ");
    b.append(small);
    if (hl.description) {
      const snippet = document.createElement("span");
      snippet.className = "snippet";
      snippet.append(marked(hl.description));
      b.append(snippet);
    }
  } else {
    b.prepend(ev.start_date.slice(11, 16) + " ");
  }
  b.addEventListener("click", () => openEvent(ev.id));
  return b;
}

// loadList shows one page of the events list; a newer call cancels the one in flight.
async function loadList() {
  if (list.ctl) list.ctl.abort();
  const ctl = (list.ctl = new AbortController());
  const params = { ...filterParams(), per_page: $("per-page").value, facets: FACETS };
  if (params.search) params.highlight = "true";
  if ($("orderby").value) params.orderby = $("orderby").value;
  if (list.page > 1) params.page = list.page;
  $("results").setAttribute("aria-busy", "true");
  try {
    const { body, headers, ms } = await call(path("events", {}, params), ctl.signal, $("list-route"));
    // The totals come from the headers, as a front end paging with HEAD or _fields would read them.
    const total = Number(headers.get("X-TEC-Total"));
    list.pages = Number(headers.get("X-TEC-TotalPages"));
    $("list").replaceChildren(...body.events.map((ev) => {
      const li = document.createElement("li");
      li.append(eventButton(ev, true));
      return li;
    }));
    $("list").start = (list.page - 1) * Number(params.per_page) + 1;
    list.facets = body.facets || {};
    showFacets(list.facets);
    showStatus($("list-status"), `${total} ${total === 1 ? "event" : "events"} · answered in ${ms} ms`);
    showPager();
  } catch (err) {
    if (err.name === "AbortError") return;
    $("list").replaceChildren();
    list.pages = 0;
    showPager();
    showError($("list-status"), err);
  } finally {
    if (list.ctl === ctl) $("results").removeAttribute("aria-busy");
  }
}

function showPager() {
  $("page-of").textContent = list.pages ? `Page ${list.page} of ${list.pages}` : "";
  $("prev").disabled = list.page <= 1;
  $("next").disabled = list.page >= list.pages;
}

function firstOfMonth(d) {
  return new Date(d.getFullYear(), d.getMonth(), 1);
}

// ymd is a date as the API reads a day bound, YYYY-MM-DD.
function ymd(d) {
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

// loadMonth fills the month grid with the month's events: the filters, with the month's first and last
// days as the date bounds.
async function loadMonth() {
  if (month.ctl) month.ctl.abort();
  const ctl = (month.ctl = new AbortController());
  const first = month.first;
  const last = new Date(first.getFullYear(), first.getMonth() + 1, 0);
  $("month-caption").textContent = first.toLocaleDateString(undefined, { month: "long", year: "numeric" });
  const params = { ...filterParams({ dates: false }), start_date: ymd(first), end_date: ymd(last), per_page: MONTH_PAGE };
  $("results").setAttribute("aria-busy", "true");
  let events = [];
  try {
    const { body, headers, ms } = await call(path("events", {}, params), ctl.signal, $("month-route"));
    events = body.events;
    const total = Number(headers.get("X-TEC-Total"));
    const more = total > events.length ? ` (the first ${events.length} are shown: narrow the filters to see the rest)` : "";
    showStatus($("month-status"), `${total} ${total === 1 ? "event" : "events"} this month${more} · answered in ${ms} ms`);
  } catch (err) {
    if (err.name === "AbortError") return;
    showError($("month-status"), err);
  } finally {
    if (month.ctl === ctl) $("results").removeAttribute("aria-busy");
  }
  drawMonth(first, last, events);
}

function drawMonth(first, last, events) {
  const byDay = new Map();
  for (const ev of events) {
    const day = ev.start_date.slice(0, 10);
    if (!byDay.has(day)) byDay.set(day, []);
    byDay.get(day).push(ev);
  }
  const rows = [];
  let row = document.createElement("tr");
  const lead = (first.getDay() + 6) % 7; // weeks start on Monday
  for (let i = 0; i < lead; i++) row.append(document.createElement("td"));
  for (let d = 1; d <= last.getDate(); d++) {
    const date = new Date(first.getFullYear(), first.getMonth(), d);
    const cell = document.createElement("td");
    const num = document.createElement("button");
    num.type = "button";
    num.className = "day";
    num.textContent = d;
    num.setAttribute("aria-label", `List the events of ${date.toLocaleDateString()}`);
    num.addEventListener("click", () => showDay(date));
    const ul = document.createElement("ul");
    for (const ev of byDay.get(ymd(date)) || []) {
      const li = document.createElement("li");
      li.append(eventButton(ev, false));
      ul.append(li);
    }
    cell.append(num, ul);
    row.append(cell);
    if (row.children.length === 7) {
      rows.push(row);
      row = document.createElement("tr");
    }
  }
  if (row.children.length) {
    while (row.children.length < 7) row.append(document.createElement("td"));
    rows.push(row);
  }
  $("month-body").replaceChildren(...rows);
}

// showDay lists the events of one day of the grid.
function showDay(date) {
  $("start").value = $("end").value = ymd(date);
  setView("list");
}

async function openEvent(id) {
  const status = $("detail-status");
  showStatus(status, "Loading…");
  $("detail-h").focus();
  try {
    const { body } = await call(path("event", { id }, {}), undefined, $("detail-route"));
    $("detail-h").textContent = decode(body.title || "Event");
    $("detail-json").textContent = JSON.stringify(body, null, 2);
    showStatus(status, "");
  } catch (err) {
    $("detail-json").textContent = JSON.stringify(err.body || {}, null, 2);
    showError(status, err);
  }
}

function setView(v) {
  view = v;
  $("show-list").setAttribute("aria-pressed", String(v === "list"));
  $("show-month").setAttribute("aria-pressed", String(v === "month"));
  $("list-view").hidden = v !== "list";
  $("month-view").hidden = v !== "month";
  refresh();
}

// refresh reloads the visible view from its first page, after a filter changed. The month grid shows
// the month of the From date when there is one.
function refresh() {
  clearTimeout(list.timer);
  list.page = 1;
  if (view === "list") {
    loadList();
    return;
  }
  const from = $("start").value;
  if (from) month.first = new Date(Number(from.slice(0, 4)), Number(from.slice(5, 7)) - 1, 1);
  loadMonth();
}

async function fillSelect(el, route, params, key, label) {
  const keep = el.value;
  try {
    const { body } = await call(path(route, {}, params), undefined, null);
    const options = body[key].map((item) => {
      const o = new Option(label(item), item.id);
      o.dataset.label = o.text;
      return o;
    });
    el.replaceChildren(new Option("Any", ""), ...options);
    showFacets(list.facets);
    el.value = keep;
    if (el.value !== keep) {
      // The choice is not offered any more (another language's venue): the views drop it too.
      el.value = "";
      refresh();
    }
  } catch (err) {
    if (err.name !== "AbortError") el.title = err.message;
  }
}

// loadChoices fills the category and venue choices. Venues have a language, so they follow it.
function loadChoices() {
  fillSelect($("category"), "categories", { per_page: 100, orderby: "name" }, "categories", (c) => decode(c.name));
  fillSelect($("venue"), "venues", { per_page: 100, only_with_upcoming: 1 }, "venues",
    (v) => decode(v.venue) + (v.city ? ", " + decode(v.city) : ""));
}

// showFacets shows each choice's count beside it, and the months as choices. A choice the counts
// leave out would leave no event, unless the counts were cut at FACET_LIMIT: then it shows none.
function showFacets(facets) {
  for (const [el, key] of [[$("category"), "categories"], [$("venue"), "venue"]]) {
    const buckets = facets[key] || [];
    const counts = new Map(buckets.map((b) => [String(b.id), b.count]));
    const complete = buckets.length < FACET_LIMIT;
    for (const o of el.options) {
      if (!o.value) continue;
      const n = counts.get(o.value) ?? (complete ? 0 : undefined);
      o.text = n === undefined ? o.dataset.label : `${o.dataset.label} (${n})`;
    }
  }
  $("month-facets").replaceChildren(...(facets.month || []).map((b) => {
    const li = document.createElement("li");
    const btn = document.createElement("button");
    btn.type = "button";
    const [y, m] = b.value.split("-").map(Number);
    const first = new Date(y, m - 1, 1);
    btn.textContent = `${first.toLocaleDateString(undefined, { month: "short", year: "numeric" })} (${b.count})`;
    btn.setAttribute("aria-label", `${b.count} events in ${first.toLocaleDateString(undefined, { month: "long", year: "numeric" })}`);
    btn.addEventListener("click", () => {
      $("start").value = ymd(first);
      $("end").value = ymd(new Date(y, m, 0));
      refresh();
    });
    li.append(btn);
    return li;
  }));
}

// updateOrders offers the orders the filters allow: relevance needs a search, distance a point.
function updateOrders() {
  const sel = $("orderby");
  sel.querySelector('[value="relevance"]').disabled = !$("q").value.trim();
  sel.querySelector('[value="distance"]').disabled = !($("lat").value && $("lng").value);
  if (sel.selectedOptions[0].disabled) sel.value = "";
}

// loadSuggestions asks /search for the best matches of every kind as one types.
async function loadSuggestions() {
  if (suggest.ctl) suggest.ctl.abort();
  const q = $("q").value.trim();
  if (!q) {
    hideSuggestions();
    return;
  }
  const ctl = (suggest.ctl = new AbortController());
  try {
    const { body } = await call(path("search", {}, { search: q, per_type: SUGGEST_PER_TYPE, highlight: "true" }), ctl.signal, null);
    showSuggestions(body);
  } catch (err) {
    if (err.name !== "AbortError") hideSuggestions();
  }
}

// The kinds /search answers, with what an item shows and what choosing it does.
const SUGGESTION_KINDS = [
  { key: "events", heading: "Events", name: (e) => e.title, pick: (e) => openEvent(e.id) },
  { key: "venues", heading: "Venues", name: (v) => v.venue, pick: (v) => chooseFilter($("venue"), v.id, v.venue) },
  { key: "organizers", heading: "Organizers", name: (o) => o.organizer, pick: (o) => searchFor(o.organizer) },
  { key: "categories", heading: "Categories", name: (c) => c.name, pick: (c) => chooseFilter($("category"), c.id, c.name) },
  { key: "tags", heading: "Tags", name: (t) => t.name, pick: (t) => searchFor(t.name) },
];

function showSuggestions(body) {
  const items = [];
  suggest.options = [];
  for (const kind of SUGGESTION_KINDS) {
    const found = body[kind.key] || [];
    if (!found.length) continue;
    const group = document.createElement("li");
    group.className = "group";
    group.setAttribute("role", "presentation");
    group.textContent = `${kind.heading} (${(body.totals || {})[kind.key] ?? found.length})`;
    items.push(group);
    for (const item of found) {
      const li = document.createElement("li");
      li.setAttribute("role", "option");
      li.id = "suggest-" + suggest.options.length;
      const hl = item.search_highlight || {};
      const label = hl.title || hl.venue || hl.organizer || hl.name;
      if (label) li.append(marked(label));
      else li.textContent = decode(kind.name(item) || "");
      li.dataset.kind = kind.key;
      li.addEventListener("mousedown", (e) => e.preventDefault()); // keep the focus in the box
      li.addEventListener("click", () => pickSuggestion(suggest.options.indexOf(li)));
      suggest.options.push(li);
      li.pick = () => kind.pick(item);
      items.push(li);
    }
  }
  $("suggest").replaceChildren(...items);
  suggest.active = -1;
  $("q").removeAttribute("aria-activedescendant");
  const open = suggest.options.length > 0;
  $("suggest").hidden = !open;
  $("q").setAttribute("aria-expanded", String(open));
}

function hideSuggestions() {
  $("suggest").hidden = true;
  $("suggest").replaceChildren();
  suggest.options = [];
  suggest.active = -1;
  $("q").setAttribute("aria-expanded", "false");
  $("q").removeAttribute("aria-activedescendant");
}

function moveSuggestion(by) {
  const n = suggest.options.length;
  if (!n) return;
  if (suggest.active >= 0) suggest.options[suggest.active].removeAttribute("aria-selected");
  suggest.active = (suggest.active + 1 + by + n + 1) % (n + 1) - 1; // -1: back in the box
  if (suggest.active < 0) {
    $("q").removeAttribute("aria-activedescendant");
    return;
  }
  const li = suggest.options[suggest.active];
  li.setAttribute("aria-selected", "true");
  li.scrollIntoView({ block: "nearest" });
  $("q").setAttribute("aria-activedescendant", li.id);
}

function pickSuggestion(i) {
  const li = suggest.options[i];
  if (!li) return;
  hideSuggestions();
  li.pick();
}

// chooseFilter selects a choice of a filter, adding it when the choices do not offer it yet (a venue
// with no upcoming event), and lists what it leaves.
function chooseFilter(el, id, name) {
  if (![...el.options].some((o) => o.value === String(id))) {
    const o = new Option(decode(name || String(id)), id);
    o.dataset.label = o.text;
    el.append(o);
  }
  el.value = String(id);
  $("q").value = "";
  updateOrders();
  refresh();
}

function searchFor(text) {
  $("q").value = decode(text || "");
  updateOrders();
  refresh();
}

function basic(login, password) {
  const bytes = new TextEncoder().encode(login + ":" + password);
  return btoa(String.fromCharCode(...bytes));
}

function init() {
  $("filters").addEventListener("submit", (e) => {
    e.preventDefault();
    refresh();
  });
  $("filters").addEventListener("reset", () => setTimeout(() => {
    updateOrders();
    hideSuggestions();
    refresh();
  }));
  $("q").addEventListener("input", () => {
    updateOrders();
    clearTimeout(list.timer);
    list.timer = setTimeout(refresh, DEBOUNCE_MS);
    clearTimeout(suggest.timer);
    suggest.timer = setTimeout(loadSuggestions, DEBOUNCE_MS);
  });
  $("q").addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      moveSuggestion(e.key === "ArrowDown" ? 1 : -1);
    } else if (e.key === "Enter" && suggest.active >= 0) {
      e.preventDefault();
      pickSuggestion(suggest.active);
    } else if (e.key === "Escape") {
      hideSuggestions();
    }
  });
  $("q").addEventListener("blur", hideSuggestions);
  for (const id of ["lat", "lng"]) $(id).addEventListener("input", updateOrders);
  for (const id of ["start", "end", "category", "venue", "lat", "lng", "radius", "per-page", "orderby"]) {
    $(id).addEventListener("change", refresh);
  }
  $("lang").addEventListener("change", () => {
    loadChoices();
    refresh();
  });
  $("prev").addEventListener("click", () => {
    list.page--;
    loadList();
  });
  $("next").addEventListener("click", () => {
    list.page++;
    loadList();
  });
  $("show-list").addEventListener("click", () => setView("list"));
  $("show-month").addEventListener("click", () => setView("month"));
  $("prev-month").addEventListener("click", () => {
    month.first = new Date(month.first.getFullYear(), month.first.getMonth() - 1, 1);
    loadMonth();
  });
  $("next-month").addEventListener("click", () => {
    month.first = new Date(month.first.getFullYear(), month.first.getMonth() + 1, 1);
    loadMonth();
  });
  $("auth").addEventListener("submit", (e) => {
    e.preventDefault();
    const login = $("login").value.trim();
    credentials = login ? basic(login, $("password").value) : "";
    $("password").value = "";
    $("auth-status").textContent = credentials ? `Requests are sent as ${login}.` : "Requests are anonymous.";
    loadChoices();
    refresh();
  });
  $("forget").addEventListener("click", () => {
    credentials = "";
    $("login").value = $("password").value = "";
    $("auth-status").textContent = "Requests are anonymous.";
    refresh();
  });
  updateOrders();
  loadChoices();
  loadList();
}

init();
