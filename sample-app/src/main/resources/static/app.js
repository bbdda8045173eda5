'use strict';
// The marketplace page: plain DOM, no framework. Every text from the server goes in through
// textContent; the only markup inserted is the server's own SVG chart.

const $ = (selector) => document.querySelector(selector);

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
    showBanner('The marketplace does not answer: is the application running?');
    return { ok: false, status: 0, body: { detail: 'No answer from the server.' }, headers: new Headers() };
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = { detail: text }; }
  if (response.status === 503) {
    showBanner((parsed && parsed.detail) || 'The service is unavailable.');
  } else if (response.ok) {
    hideBanner();
  }
  return { ok: response.ok, status: response.status, body: parsed, headers: response.headers };
}

function showBanner(text) { const b = $('#banner'); b.textContent = text; b.hidden = false; }
function hideBanner() { $('#banner').hidden = true; }

/** A problem detail as one line: its detail, and each field error. */
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

function fillSelect(select, values, keep) {
  const previous = select.value;
  select.replaceChildren(...values.map((value) => {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = value;
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

// --- users and market -------------------------------------------------------------------------

let users = [];

async function refreshUsers() {
  const answer = await api('GET', '/users');
  if (!answer.ok) return;
  users = answer.body;
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
  fillSelect($('#buyer'), ids, true);
  fillSelect($('#item-user'), ids, true);
  fillSelect($('#list-seller'), ids, true);
  refreshListable();
}

function refreshListable() {
  const seller = users.find((user) => user.id === $('#list-seller').value);
  fillSelect($('#list-item'), seller ? [...seller.inventory].sort() : [], true);
}

async function refreshMarket() {
  const answer = await api('GET', '/market?limit=50');
  if (!answer.ok) return;
  const tbody = $('#listings tbody');
  tbody.replaceChildren(...answer.body.map((listing) => {
    const row = document.createElement('tr');
    row.dataset.item = listing.itemId;
    row.dataset.seller = listing.sellerId;
    cell(row, listing.itemId);
    cell(row, listing.sellerId);
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

async function refreshAll() { await Promise.all([refreshUsers(), refreshMarket()]); }

async function buy(listing) {
  const buyer = $('#buyer').value;
  const strategy = $('#strategy').value;
  if (!buyer) { say('#trade-result', 'Create a user to buy with first.', false); return; }
  const answer = await api('POST', '/market/purchases?strategy=' + encodeURIComponent(strategy),
      { buyerId: buyer, itemId: listing.itemId, sellerId: listing.sellerId, price: listing.price });
  if (answer.ok) {
    say('#trade-result', `Bought ${listing.itemId} from ${listing.sellerId} for ${listing.price} as ${buyer}`
        + ` (${strategy}, ${answer.body.retries} retries).`, true);
  } else {
    say('#trade-result', `${buyer} could not buy ${listing.itemId}: ${problemText(answer)}`, false);
  }
  await refreshAll();
}

$('#list-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const item = $('#list-item').value;
  const seller = $('#list-seller').value;
  const price = Number($('#list-price').value);
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
  const funds = $('#new-user-funds').value === '' ? null : Number($('#new-user-funds').value);
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

// --- what is held -----------------------------------------------------------------------------

async function refreshHeld() {
  const answer = await api('GET', '/held');
  if (!answer.ok) return;
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
      item.textContent = `call ${call.call}: ${call.status} ${body.title || ''}`
          + (call.retryAfter ? `, retry after ${call.retryAfter} s` : '') + (body.detail ? ` (${body.detail})` : '');
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
    say('#stream-result', 'No answer from the server.', false);
    return;
  }
  if (!response.ok) {
    const text = await response.text();
    let detail = text;
    try { detail = JSON.parse(text).detail; } catch (e) { /* not JSON */ }
    const retry = response.headers.get('Retry-After');
    say('#stream-result', `Refused (${response.status}): ${detail}` + (retry ? ` Retry after ${retry} s.` : ''), false);
    return;
  }
  say('#stream-result', `Stream opened for ${account}.`, true);
  const item = document.createElement('li');
  const label = document.createElement('span');
  const close = document.createElement('button');
  close.textContent = 'Close';
  close.addEventListener('click', () => { controller.abort(); item.remove(); say('#stream-result', 'Stream closed: its slot frees at the next heartbeat.', true); });
  item.append(label, ' ', close);
  $('#streams').appendChild(item);
  let events = 0;
  label.textContent = `${account}: open, 0 events`;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events += (decoder.decode(value).match(/^event:/gm) || []).length;
      label.textContent = `${account}: open, ${events} events`;
    }
    label.textContent = `${account}: ended by the server after ${events} events`;
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

function renderTable(run) {
  $('#table-progress').value = run.done;
  $('#table-status').textContent = run.state === 'RUNNING' ? `row ${Math.min(run.done + 1, run.total)} of ${run.total}…`
      : run.state === 'DONE' ? 'done' : (run.error || '');
  $('#table-rows tbody').replaceChildren(...run.rows.map((row) => {
    const tr = document.createElement('tr');
    cell(tr, row.workers);
    cell(tr, row.strategy);
    cell(tr, row.listed.toLocaleString('en'), 'num');
    cell(tr, row.bought.toLocaleString('en'), 'num');
    cell(tr, row.retries.toLocaleString('en'), 'num');
    cell(tr, row.averageWaitMillis.toFixed(2) + ' ms', 'num');
    cell(tr, row.book[1]);
    return tr;
  }));
  $('#table-chart').innerHTML = run.chart || '';
  $('#table-run').disabled = run.state === 'RUNNING';
}

function renderLab(answer) {
  const run = answer.run;
  $('#lab-progress').value = run.done;
  $('#lab-status').textContent = run.state === 'RUNNING' ? `stage ${Math.min(run.done + 1, run.total)} of ${run.total}…`
      : run.state === 'DONE' ? 'done' : (run.error || '');
  const head = document.createElement('tr');
  ['stage', ...answer.faults].forEach((name) => { const th = document.createElement('th'); th.textContent = name; head.appendChild(th); });
  $('#lab-table thead').replaceChildren(head);
  $('#lab-table tbody').replaceChildren(...run.rows.map((row) => {
    const tr = document.createElement('tr');
    cell(tr, row.stage);
    answer.faults.forEach((fault) => cell(tr, row.outcomes[fault]));
    return tr;
  }));
  $('#lab-run').disabled = run.state === 'RUNNING';
}

$('#table-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const answer = await api('POST', '/runs/table-6.3?secondsPerRow=' + $('#table-seconds').value);
  if (!answer.ok) { $('#table-status').textContent = problemText(answer); return; }
  await poll('/runs/table-6.3', renderTable);
  await refreshAll();
});

$('#lab-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const answer = await api('POST', '/runs/lock-lab');
  if (!answer.ok) { $('#lab-status').textContent = problemText(answer); return; }
  await poll('/runs/lock-lab', renderLab);
});

// --- start ------------------------------------------------------------------------------------

async function start() {
  await refreshAll();
  await refreshHeld();
  poll('/runs/table-6.3', renderTable);
  poll('/runs/lock-lab', renderLab);
  setInterval(() => { if (!document.hidden) refreshHeld(); }, 1000);
  setInterval(() => { if (!document.hidden) refreshAll(); }, 3000);
  document.body.dataset.ready = 'true';
}

start();
