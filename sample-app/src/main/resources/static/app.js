'use strict';
// The marketplace page: plain DOM, no framework. Every text from the server goes in through
// textContent; the only markup inserted is the server's own SVG chart.

const $ = (selector) => document.querySelector(selector);

// --- talking to the server --------------------------------------------------------------------

/** Since when the server or Redis has not answered (ms), or 0 while all is well. */
let downSince = 0;
/** How many restarts of the sample's own redis-server the page has already told about. */
let restartsSeen = null;

/** Paths the sample answers from memory: their answers say nothing about Redis. */
const WITHOUT_REDIS = ['/status', '/trades', '/runs/'];

/** Calls the API; resolves to {ok, status, body, headers} and never rejects on an HTTP error. */
async function api(method, path, body) {
  const options = { method, headers: { Accept: 'application/json, application/problem+json' } };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    down('The sample does not answer: is it running?');
    return { ok: false, status: 0, body: { detail: 'No answer from the sample.' }, headers: new Headers() };
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = { detail: text }; }
  if (response.status === 503) {
    down('Redis does not answer.');
  } else if (response.ok && !WITHOUT_REDIS.some((prefix) => path.startsWith(prefix))) {
    up();
  }
  return { ok: response.ok, status: response.status, body: parsed, headers: response.headers };
}

/** Shows the banner once per outage; the page keeps asking, and says so once. */
function down(what) {
  if (!downSince) downSince = Date.now();
  const since = new Date(downSince).toLocaleTimeString('en-GB');
  showBanner(`${what} Since ${since} the panels show their last data, greyed; the page asks again every 3 s.`);
}

function up() {
  if (!downSince) return;
  downSince = 0;
  hideBanner();
}

function showBanner(text) { const b = $('#banner'); b.textContent = text; b.hidden = false; }
function hideBanner() { $('#banner').hidden = true; }

/** Where the data lives, and whether the sample's own redis-server died and was started again. */
async function refreshStatus() {
  const answer = await api('GET', '/status');
  if (!answer.ok) return;
  const status = answer.body;
  $('#where').textContent = status.own
    ? `Data: the sample's own redis-server at ${status.redis}. It lives only as long as that server: the sample`
      + ' starts it and stops it, and loads the book\'s example into it.'
    : `Data: ${status.redis}, the Redis the sample was pointed at.`;
  const server = status.server;
  if (!server) return;
  if (server.failure) {
    showBanner(server.failure);
    return;
  }
  if (restartsSeen !== null && server.restarts > restartsSeen) {
    const when = server.lastExit ? new Date(server.lastExit).toLocaleTimeString('en-GB') : 'just now';
    $('#notice-text').textContent = `The sample's redis-server died at ${when} and was started again on the same`
      + ' port. Its data died with it, so the book\'s example was loaded again.';
    $('#notice').hidden = false;
  }
  restartsSeen = server.restarts;
}

$('#notice-close').addEventListener('click', () => { $('#notice').hidden = true; });

// --- panels that show Redis's data grey out when it stops answering ----------------------------

const panels = {};
document.querySelectorAll('[data-panel]').forEach((section) => {
  panels[section.dataset.panel] = { section, updated: 0, stale: false };
});

function fresh(name) {
  const panel = panels[name];
  panel.updated = Date.now();
  if (panel.stale) setStale(panel, false);
}

function failed(name) {
  const panel = panels[name];
  if (!panel.stale) setStale(panel, true);
  noteAge(panel);
}

function setStale(panel, stale) {
  panel.stale = stale;
  panel.section.classList.toggle('stale', stale);
  panel.section.querySelectorAll('form, table, .try, .controls').forEach((element) => { element.inert = stale; });
  if (!stale) panel.section.querySelector('.stale-note').textContent = '';
}

function noteAge(panel) {
  const note = panel.section.querySelector('.stale-note');
  note.textContent = panel.updated
    ? `last updated ${Math.round((Date.now() - panel.updated) / 1000)} s ago`
    : 'not loaded yet';
}

setInterval(() => Object.values(panels).filter((panel) => panel.stale).forEach(noteAge), 1000);

// --- small helpers ----------------------------------------------------------------------------

/** A problem detail as one line: its detail, or its title. */
function problemText(answer) {
  const body = answer.body || {};
  return (body.detail || body.title || ('HTTP ' + answer.status));
}

function say(selector, text, ok) {
  const element = $(selector);
  element.textContent = text;
  element.className = 'result ' + (ok ? 'ok' : 'refused');
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

function fillSelect(select, values, keep, label) {
  const previous = select.value;
  select.replaceChildren(...values.map((value) => {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = label ? label(value) : value;
    return option;
  }));
  if (keep && values.includes(previous)) select.value = previous;
}

function seconds(millis) { return (Math.max(0, millis) / 1000).toFixed(1) + ' s'; }

/** "3f2a9c1e…#12": the holding instance's id, shortened, and its grant number. */
function holder(token) {
  const colon = token.lastIndexOf(':');
  return colon < 0 ? token : token.slice(0, 8) + '…#' + token.slice(colon + 1);
}

/** A number read from an input: null when empty, so the server says the field is required. */
function numberOrNull(input) {
  const text = input.value.trim();
  return text === '' ? null : Number(text);
}

// --- users and market -------------------------------------------------------------------------

let users = [];

/** "27 Bill", or the id alone when the name is the id. */
function userLabel(id) {
  const user = users.find((candidate) => candidate.id === id);
  return user && user.name && user.name !== id ? `${id} ${user.name}` : id;
}

async function refreshUsers() {
  const answer = await api('GET', '/users');
  if (!answer.ok) { failed('users'); return; }
  fresh('users');
  users = answer.body.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  const tbody = $('#users tbody');
  tbody.replaceChildren(...users.map((user) => {
    const row = document.createElement('tr');
    row.dataset.user = user.id;
    cell(row, user.id);
    cell(row, user.name);
    cell(row, user.funds.toLocaleString('en'), 'num funds');
    cell(row, [...user.inventory].sort().join(', '), 'inventory');
    return row;
  }));
  const ids = users.map((user) => user.id);
  const buyer = $('#buyer');
  const hadBuyer = buyer.value !== '';
  fillSelect(buyer, ids, true, userLabel);
  if (!hadBuyer && ids.includes('27')) buyer.value = '27';
  fillSelect($('#item-user'), ids, true, userLabel);
  const seller = $('#list-seller');
  const hadSeller = seller.value !== '';
  fillSelect(seller, ids, true, userLabel);
  if (!hadSeller && ids.includes('17')) seller.value = '17';
  refreshListable();
}

function refreshListable() {
  const seller = users.find((user) => user.id === $('#list-seller').value);
  const item = $('#list-item');
  const hadItem = item.value !== '';
  const items = seller ? [...seller.inventory].sort() : [];
  fillSelect(item, items, true);
  if (!hadItem && items.includes('ItemM')) item.value = 'ItemM'; // the book's figure 6.4
}

async function refreshMarket() {
  const answer = await api('GET', '/market?limit=50');
  if (!answer.ok) { failed('market'); return; }
  fresh('market');
  const tbody = $('#listings tbody');
  tbody.replaceChildren(...answer.body.map((listing) => {
    const row = document.createElement('tr');
    row.dataset.item = listing.itemId;
    row.dataset.seller = listing.sellerId;
    cell(row, listing.itemId);
    cell(row, userLabel(listing.sellerId));
    cell(row, listing.price.toLocaleString('en'), 'num');
    const button = document.createElement('button');
    button.className = 'buy';
    button.textContent = 'Buy';
    button.addEventListener('click', () => buy(listing));
    cell(row, '').appendChild(button);
    return row;
  }));
  $('#listings-empty').hidden = answer.body.length > 0;
}

async function refreshAll() {
  await refreshUsers();
  await Promise.all([refreshMarket(), refreshTrades(), refreshStatus()]);
}

/** What a trade's locks did, in words: "waited 2.9 s for market:ItemA.4, funds:27 (fencing tokens 13, 6)". */
function lockStory(trade) {
  if (!trade || trade.locks === null || trade.locks === undefined) return 'no lock';
  const tokens = Object.values(trade.fencingTokens || {});
  return `waited ${seconds(trade.waitedMillis || 0)} for ${trade.locks}`
    + (tokens.length ? ` (fencing token${tokens.length > 1 ? 's' : ''} ${tokens.join(', ')})` : '');
}

async function buy(listing) {
  const buyer = $('#buyer').value;
  const strategy = $('#strategy').value;
  const slow = $('#slow').checked;
  if (!buyer) { say('#trade-result', 'Create a user to buy with first.', false); return; }
  say('#trade-result', `${userLabel(buyer)} is buying ${listing.itemId}`
      + (slow ? ' (slow trade: about 3 s)…' : '…'), true);
  const answer = await api('POST', '/market/purchases?strategy=' + encodeURIComponent(strategy)
      + (slow ? '&slow=true' : ''),
      { buyerId: buyer, itemId: listing.itemId, sellerId: listing.sellerId, price: listing.price });
  const trade = answer.body && answer.body.trade;
  if (answer.ok) {
    const retries = answer.body.retries;
    say('#trade-result', `Bought ${listing.itemId} from ${listing.sellerId} for ${listing.price} as ${buyer}`
        + ` (${strategy}): ` + (strategy === 'watch'
          ? `no lock, ${retries} ${retries === 1 ? 'retry' : 'retries'}.`
          : `${lockStory(trade)}, held them ${seconds(trade.heldMillis || 0)}.`), true);
  } else if (trade) {
    say('#trade-result', `${buyer} could not buy ${listing.itemId}: ${problemText(answer)} `
        + (strategy === 'watch'
          ? `(no lock, ${trade.retries} ${trade.retries === 1 ? 'retry' : 'retries'})`
          : `It ${lockStory(trade)}, then found that.`), false);
  } else {
    say('#trade-result', `${buyer} could not buy ${listing.itemId}: ${problemText(answer)}`, false);
  }
  await refreshAll();
}

$('#list-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const item = $('#list-item').value;
  const seller = $('#list-seller').value;
  const price = numberOrNull($('#list-price'));
  const strategy = $('#strategy').value;
  if (!item) { say('#trade-result', 'That user has nothing in inventory to list.', false); return; }
  const answer = await api('POST', '/market/listings?strategy=' + encodeURIComponent(strategy),
      { itemId: item, sellerId: seller, price });
  say('#trade-result', answer.ok ? `Listed ${item} of ${seller} at ${price} (${strategy}).`
      : `Could not list ${item}: ${problemText(answer)}`, answer.ok);
  await refreshAll();
});

$('#list-seller').addEventListener('change', refreshListable);

$('#user-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = $('#new-user-id').value.trim();
  const name = $('#new-user-name').value.trim();
  const funds = numberOrNull($('#new-user-funds'));
  const answer = await api('POST', '/users', { id, name: name || null, funds });
  say('#user-result', answer.ok ? `Created ${id}.` : `Not created: ${problemText(answer)}`, answer.ok);
  if (answer.ok) $('#new-user-id').value = '';
  await refreshAll();
});

$('#item-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const user = $('#item-user').value;
  const itemId = $('#item-id').value.trim();
  if (!user) { say('#user-result', 'Create a user first.', false); return; }
  const answer = await api('POST', '/users/' + encodeURIComponent(user) + '/inventory', { itemId });
  say('#user-result', answer.ok ? `Gave ${itemId} to ${user}.` : `Not added: ${problemText(answer)}`, answer.ok);
  if (answer.ok) $('#item-id').value = '';
  await refreshAll();
});

$('#load-example').addEventListener('click', async () => {
  const answer = await api('POST', '/example');
  say('#user-result', answer.ok ? 'Loaded the book\'s example: Frank (17), Bill (27), four sellers, four listings.'
      : `Not loaded: ${problemText(answer)}`, answer.ok);
  await refreshAll();
});

// --- the lock log -----------------------------------------------------------------------------

const OUTCOMES = {
  DONE: (trade) => (trade.action === 'buy' ? 'bought it' : 'listed it'),
  NOT_LISTED: () => 'not on the market at this price: sold',
  NOT_IN_INVENTORY: () => 'not in the seller\'s inventory',
  INSUFFICIENT_FUNDS: () => 'funds too low',
  UNKNOWN_USER: () => 'unknown user',
  GAVE_UP: () => 'gave up: WATCH retried for 10 s',
  BUSY: () => 'gave up: the locks stayed taken for the whole wait (409)',
  UNAVAILABLE: () => 'Redis unavailable (503)',
  FAILED: () => 'failed',
};

async function refreshTrades() {
  const answer = await api('GET', '/trades');
  if (!answer.ok) { failed('log'); return; }
  fresh('log');
  const rows = answer.body.map((trade) => {
    const row = document.createElement('tr');
    row.dataset.trade = trade.id;
    row.dataset.who = trade.who;
    row.dataset.state = trade.state;
    row.className = trade.state === 'done' ? (trade.outcome === 'DONE' ? 'won' : 'lost') : 'running';
    cell(row, String(trade.id));
    cell(row, new Date(trade.at).toLocaleTimeString('en-GB'));
    cell(row, userLabel(trade.who), 'who');
    cell(row, `${trade.action} ${trade.itemId} of ${trade.sellerId} at ${trade.price}` + (trade.slow ? ', slow' : ''));
    cell(row, trade.strategy);
    cell(row, trade.locks === null ? 'none (WATCH)' : trade.locks, 'locks');
    const waited = trade.waitedMillis === null ? '' : seconds(trade.waitedMillis)
        + (trade.state === 'waiting' ? ' so far' : '');
    cell(row, waited, 'num waited' + (trade.waitedMillis >= 500 ? ' long' : ''));
    cell(row, Object.values(trade.fencingTokens).join(', '), 'tokens');
    cell(row, trade.heldMillis === null ? '' : seconds(trade.heldMillis)
        + (trade.state === 'holding' ? ' so far' : ''), 'num');
    const result = trade.state === 'waiting' ? 'waiting for its locks…'
      : trade.state === 'holding' ? 'holding its locks…'
      : trade.state === 'running' ? 'running…'
      : (OUTCOMES[trade.outcome] || (() => trade.outcome))(trade)
        + (trade.retries ? ` (${trade.retries} ${trade.retries === 1 ? 'retry' : 'retries'})` : '');
    cell(row, result, 'outcome');
    return row;
  });
  $('#trades tbody').replaceChildren(...(rows.length ? rows
    : [emptyRow(10, 'no trade yet: buy or list something in the Market panel')]));
}

// --- what is held -----------------------------------------------------------------------------

async function refreshHeld() {
  const answer = await api('GET', '/held');
  if (!answer.ok) { failed('held'); return; }
  fresh('held');
  const locks = answer.body.locks.map((lock) => {
    const row = document.createElement('tr');
    cell(row, lock.name);
    cell(row, holder(lock.holder));
    cell(row, seconds(lock.leftMillis), 'num');
    return row;
  });
  $('#held-locks tbody').replaceChildren(...(locks.length ? locks : [emptyRow(3, 'no lock is held')]));
  const permits = answer.body.semaphores.flatMap((semaphore) => semaphore.permits.map((permit) => {
    const row = document.createElement('tr');
    cell(row, semaphore.name);
    cell(row, holder(permit.holder));
    cell(row, seconds(permit.leftMillis), 'num');
    return row;
  }));
  $('#held-permits tbody').replaceChildren(...(permits.length ? permits : [emptyRow(3, 'no permit is held')]));
}

function emptyRow(columns, text) {
  const row = document.createElement('tr');
  const td = cell(row, text, 'muted');
  td.colSpan = columns;
  return row;
}

// --- partner cap ------------------------------------------------------------------------------

$('#partner-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const account = $('#partner-account').value.trim() || 'acct-7';
  const button = $('#partner-fire');
  button.disabled = true;
  $('#partner-results').replaceChildren();
  say('#partner-summary', 'Firing 8 calls at once…', true);
  const answer = await api('POST', '/accounts/' + encodeURIComponent(account) + '/partner-burst?calls=8');
  button.disabled = false;
  if (!answer.ok) { say('#partner-summary', problemText(answer), false); return; }
  let accepted = 0;
  let refused = 0;
  $('#partner-results').replaceChildren(...answer.body.map((call) => {
    const item = document.createElement('li');
    let body = {};
    try { body = JSON.parse(call.body); } catch (e) { body = {}; }
    if (call.status === 200) {
      accepted++;
      item.className = 'ok accepted';
      item.textContent = `call ${call.call}: 200, quote ${body.price}`;
    } else {
      refused++;
      item.className = 'refused rejected';
      // The detail says when to retry; Retry-After is the same advice for programs.
      item.textContent = `call ${call.call}: ${call.status} ${body.title || ''}: ${body.detail || ''}`;
    }
    return item;
  }));
  say('#partner-summary', `${accepted} accepted, ${refused} refused`, refused === 0 || accepted > 0);
});

// --- stream slots -----------------------------------------------------------------------------

$('#stream-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const account = $('#stream-account').value.trim() || 'viewer';
  const controller = new AbortController();
  let response;
  try {
    response = await fetch('/accounts/' + encodeURIComponent(account) + '/stream', { signal: controller.signal });
  } catch (e) {
    say('#stream-result', 'No answer from the sample.', false);
    return;
  }
  if (!response.ok) {
    const text = await response.text();
    let detail = text;
    try { detail = JSON.parse(text).detail; } catch (e) { /* not JSON */ }
    say('#stream-result', `Refused (${response.status}): ${detail}`, false);
    return;
  }
  say('#stream-result', `Stream opened for ${account}: it holds one slot while it stays open.`, true);
  const item = document.createElement('li');
  const label = document.createElement('span');
  const close = document.createElement('button');
  close.textContent = 'Close';
  close.addEventListener('click', () => {
    controller.abort();
    item.remove();
    say('#stream-result', 'Stream closed: its slot frees at the next heartbeat (500 ms).', true);
  });
  item.append(label, ' ', close);
  $('#streams').appendChild(item);
  let beats = 0;
  const show = () => { label.textContent = `${account}: open, ${beats} heartbeats received (one per 500 ms)`; };
  show();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      beats += (decoder.decode(value).match(/^event:/gm) || []).length;
      show();
    }
    label.textContent = `${account}: ended by the server after ${beats} heartbeats`;
  } catch (e) {
    // aborted by Close
  }
});

// --- long runs --------------------------------------------------------------------------------

async function poll(path, render) {
  for (;;) {
    const answer = await api('GET', path);
    if (!answer.ok) return;
    render(answer.body);
    const run = answer.body.run || answer.body;
    if (run.state !== 'RUNNING') return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function status(selector, text, kind) {
  const element = $(selector);
  element.textContent = text;
  element.className = 'status ' + (kind || '');
}

function renderTable(run) {
  $('#table-progress').value = run.done;
  if (run.state === 'RUNNING') status('#table-status', `row ${Math.min(run.done + 1, run.total)} of ${run.total}…`);
  else if (run.state === 'DONE') status('#table-status', 'done', 'ok');
  else if (run.state === 'FAILED') status('#table-status', run.error || 'failed', 'refused');
  $('#table-rows tbody').replaceChildren(...run.rows.flatMap((row) => {
    const tr = document.createElement('tr');
    cell(tr, row.workers);
    cell(tr, row.strategy);
    cell(tr, row.listed.toLocaleString('en'), 'num');
    cell(tr, row.bought.toLocaleString('en'), 'num');
    cell(tr, row.retries.toLocaleString('en'), 'num');
    cell(tr, row.averageWaitMillis.toFixed(2) + ' ms', 'num');
    const book = document.createElement('tr');
    book.className = 'book';
    cell(book, '');
    cell(book, 'the book');
    row.book.forEach((value) => cell(book, value, 'num'));
    return [tr, book];
  }));
  $('#table-chart').innerHTML = run.chart || '';
  $('#table-run').disabled = run.state === 'RUNNING';
}

function renderLab(answer) {
  const run = answer.run;
  $('#lab-progress').value = run.done;
  if (run.state === 'RUNNING') status('#lab-status', `stage ${Math.min(run.done + 1, run.total)} of ${run.total}…`);
  else if (run.state === 'DONE') status('#lab-status', 'done', 'ok');
  else if (run.state === 'FAILED') status('#lab-status', run.error || 'failed', 'refused');
  const head = document.createElement('tr');
  ['stage', ...answer.faults].forEach((name) => { const th = document.createElement('th'); th.textContent = name; head.appendChild(th); });
  $('#lab-table thead').replaceChildren(head);
  $('#lab-table tbody').replaceChildren(...run.rows.map((row) => {
    const tr = document.createElement('tr');
    cell(tr, row.stage);
    answer.faults.forEach((fault) => {
      const verdict = (row.verdicts && row.verdicts[fault]) || 'n/a';
      cell(tr, row.outcomes[fault], 'verdict ' + verdict.replace('/', ''));
    });
    return tr;
  }));
  $('#lab-run').disabled = run.state === 'RUNNING';
}

$('#table-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const answer = await api('POST', '/runs/table-6.3?secondsPerRow=' + $('#table-seconds').value);
  if (!answer.ok) { status('#table-status', problemText(answer), 'refused'); return; }
  await poll('/runs/table-6.3', renderTable);
  await refreshAll();
});

$('#lab-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const answer = await api('POST', '/runs/lock-lab');
  if (!answer.ok) { status('#lab-status', problemText(answer), 'refused'); return; }
  await poll('/runs/lock-lab', renderLab);
});

// --- start ------------------------------------------------------------------------------------

async function start() {
  await refreshAll();
  await refreshHeld();
  poll('/runs/table-6.3', renderTable);
  poll('/runs/lock-lab', renderLab);
  setInterval(() => { if (!document.hidden) { refreshHeld(); refreshTrades(); } }, 1000);
  setInterval(() => { if (!document.hidden) refreshAll(); }, 3000);
  document.body.dataset.ready = 'true';
}

start();
