'use strict';
// The marketplace page: plain DOM, no framework. Every text from the server goes in through
// textContent; the only markup inserted is the server's own SVG chart.

const $ = (selector) => document.querySelector(selector);

// --- talking to the server --------------------------------------------------------------------

/** Since when the server or Redis has not answered (ms), or 0 while all is well. */
let downSince = 0;
/** What is wrong now, in words, while something is. */
let downWhat = '';
/** Why the sample's own redis-server is down for good ("left down"), as /status says; else null. */
let ownFailure = null;
/** How many restarts of the sample's own redis-server the page has already told about. */
let restartsSeen = null;

/** Paths the sample answers from memory: their answers say nothing about Redis. */
const WITHOUT_REDIS = ['/status', '/trades', '/runs/'];

/** A read that takes longer than this counts as failed: the page greys its panels then, not later. */
const READ_TIMEOUT_MS = 2000;

/** Calls the API; resolves to {ok, status, body, headers} and never rejects on an HTTP error. */
async function api(method, path, body) {
  const options = { method, headers: { Accept: 'application/json, application/problem+json' } };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const reading = method === 'GET';
  if (reading) options.signal = AbortSignal.timeout(READ_TIMEOUT_MS);
  let response;
  let text;
  try {
    response = await fetch(path, options);
    text = await response.text();
  } catch (e) {
    const slow = reading && e && (e.name === 'TimeoutError' || e.name === 'AbortError');
    if (slow && !WITHOUT_REDIS.some((prefix) => path.startsWith(prefix))) {
      down('Redis does not answer in time.');
    } else {
      down('The sample does not answer: is it running?');
    }
    return { ok: false, status: 0, body: { detail: slow ? 'No answer within 2 s.' : 'No answer from the sample.' },
      headers: new Headers() };
  }
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch (e) { parsed = { detail: text }; }
  if (response.status === 503) {
    down('Redis does not answer.');
  } else if (response.ok && !WITHOUT_REDIS.some((prefix) => path.startsWith(prefix))) {
    up();
  }
  return { ok: response.ok, status: response.status, body: parsed, headers: response.headers };
}

/** Shows the banner once per outage and greys every panel that shows Redis's data at once. */
function down(what) {
  if (!downSince) downSince = Date.now();
  downWhat = what;
  Object.values(panels).filter((panel) => panel.fromRedis).forEach((panel) => {
    if (!panel.stale) setStale(panel, true);
    noteAge(panel);
  });
  renderBanner();
}

function up() {
  if (!downSince) return;
  downSince = 0;
  renderBanner();
}

/**
 * One banner, the truest thing first: the sample's own redis-server left down for good (until
 * /status stops saying so), else an outage in progress, else nothing.
 */
function renderBanner() {
  const banner = $('#banner');
  if (ownFailure) {
    banner.textContent = ownFailure;
    banner.dataset.kind = 'left-down';
  } else if (downSince) {
    const since = new Date(downSince).toLocaleTimeString('en-GB');
    banner.textContent = `${downWhat} Since ${since} the panels show their last data, greyed; the page asks again`
      + ' every 3 s.';
    banner.dataset.kind = 'down';
  } else {
    banner.hidden = true;
    delete banner.dataset.kind;
    return;
  }
  banner.hidden = false;
}

/** Where the data lives, and whether the sample's own redis-server died and was started again. */
async function refreshStatus() {
  const answer = await api('GET', '/status');
  if (!answer.ok) return;
  const status = answer.body;
  $('#where').textContent = status.own
    ? `Data: the sample's own redis-server at ${status.redis}. It lives only as long as that server: the sample`
      + ' starts it and stops it, and loads the market street into it.'
    : `Data: ${status.redis}, the Redis the sample was pointed at.`;
  $('#table-cores').textContent = ` (${status.cores} processor${status.cores === 1 ? '' : 's'})`;
  const server = status.server;
  ownFailure = server && server.failure ? server.failure : null;
  renderBanner();
  if (!server || ownFailure) return;
  if (restartsSeen !== null && server.restarts > restartsSeen) {
    const when = server.lastExit ? new Date(server.lastExit).toLocaleTimeString('en-GB') : 'just now';
    $('#notice-text').textContent = `The sample's redis-server died at ${when} and was started again on the same`
      + ' port. Its data died with it, so the market street was loaded again.';
    $('#notice').hidden = false;
  }
  restartsSeen = server.restarts;
}

$('#notice-close').addEventListener('click', () => { $('#notice').hidden = true; });

// --- panels that show Redis's data grey out when it stops answering ----------------------------

const panels = {};
document.querySelectorAll('[data-panel]').forEach((section) => {
  panels[section.dataset.panel] = { section, updated: 0, stale: false, fromRedis: section.dataset.panel !== 'log' };
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

// --- people and market ------------------------------------------------------------------------

let users = [];

/** "Ann" when the id is the name in small letters, else "Bill (27)"; the id alone when there is no name. */
function userLabel(id) {
  const user = users.find((candidate) => candidate.id === id);
  if (!user || !user.name || user.name === id) return id;
  return user.name.toLowerCase() === id ? user.name : `${user.name} (${id})`;
}

/** Keeps a select's choice, else picks the first of {@code preferred} that is there. */
function fillUsers(select, ids, preferred) {
  const had = select.value !== '';
  fillSelect(select, ids, true, userLabel);
  if (!had) {
    const pick = preferred.find((id) => ids.includes(id));
    if (pick) select.value = pick;
  }
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
  fillUsers($('#buyer'), ids, ['ben', '27']);
  fillUsers($('#race-first'), ids, ['ann', '27']);
  fillUsers($('#race-second'), ids, ['ben', '17']);
  fillUsers($('#item-user'), ids, []);
  fillUsers($('#list-seller'), ids, ['ann', '17']);
  refreshListable();
}

function refreshListable() {
  const seller = users.find((user) => user.id === $('#list-seller').value);
  const item = $('#list-item');
  const hadItem = item.value !== '';
  const items = seller ? [...seller.inventory].sort() : [];
  fillSelect(item, items, true);
  if (!hadItem && items.includes('guitar')) item.value = 'guitar'; // step 2
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
    const actions = cell(row, '', 'actions');
    const buyButton = document.createElement('button');
    buyButton.className = 'buy';
    buyButton.textContent = 'Buy';
    buyButton.addEventListener('click', () => buy(listing));
    const raceButton = document.createElement('button');
    raceButton.className = 'race';
    raceButton.textContent = 'Race';
    raceButton.title = 'Two buyers at once: the first chosen under Race, then the second';
    raceButton.addEventListener('click', () => race(listing));
    actions.append(buyButton, ' ', raceButton);
    return row;
  }));
  $('#listings-empty').hidden = answer.body.length > 0;
}

/** Every panel at once; the market after the people, whose names its rows show. */
async function refreshAll() {
  await Promise.all([refreshUsers().then(refreshMarket), refreshTrades(), refreshStatus()]);
}

/**
 * "market:teapot.dev +3,125,595 over #4": a token by its lock, as how much larger it is than the
 * previous grant's in the log (its order at a glance), else its last digits; the full token on hover.
 */
function tokenText(token) {
  return token.sincePrevious !== null && token.sincePrevious !== undefined
    ? `${token.lock} +${token.sincePrevious.toLocaleString('en')} over #${token.previousTrade}`
    : `${token.lock} ${token.shortForm}`;
}

/** "waited 2.7 s for #12's lock on market:teapot.dev", or "got market:lamp.cara, funds:ben at once". */
function waitText(trade) {
  if (!trade || !trade.locks) return 'no lock';
  if (trade.waitedFor && trade.waitedFor.length) {
    const whose = trade.waitedFor.map((id) => '#' + id).join(', ');
    return `waited ${seconds(trade.waitedMillis || 0)} for ${whose}'s lock${trade.waitedOn.length > 1 ? 's' : ''}`
      + ` on ${trade.waitedOn.join(', ')}`;
  }
  return `got ${trade.locks.join(', ')} at once`;
}

/** What a trade's locks did, in words, with its labelled tokens. */
function lockStory(trade) {
  if (!trade || !trade.locks) return 'no lock';
  const tokens = (trade.tokens || []).map(tokenText);
  return waitText(trade) + (tokens.length ? ` (fencing token${tokens.length > 1 ? 's' : ''} ${tokens.join(', ')})` : '');
}

async function buy(listing) {
  const buyer = $('#buyer').value;
  const strategy = $('#strategy').value;
  const slow = $('#slow').checked;
  if (!buyer) { say('#trade-result', 'Create a person to buy with first.', false); return; }
  say('#trade-result', `${userLabel(buyer)} is buying the ${listing.itemId}`
      + (slow ? ' (slow trade: about 3 s)…' : '…'), true);
  const answer = await api('POST', '/market/purchases?strategy=' + encodeURIComponent(strategy)
      + (slow ? '&slow=true' : ''),
      { buyerId: buyer, itemId: listing.itemId, sellerId: listing.sellerId, price: listing.price });
  const trade = answer.body && answer.body.trade;
  const what = `the ${listing.itemId} from ${userLabel(listing.sellerId)} for ${listing.price}`;
  if (answer.ok) {
    const retries = answer.body.retries;
    say('#trade-result', `${userLabel(buyer)} bought ${what} (${strategy}): ` + (strategy === 'watch'
          ? `no lock, ${retries} ${retries === 1 ? 'retry' : 'retries'}.`
          : `${lockStory(trade)}; held them ${seconds(trade.heldMillis || 0)}.`), true);
  } else if (trade) {
    say('#trade-result', `${userLabel(buyer)} could not buy ${what}: ${problemText(answer)} `
        + (strategy === 'watch'
          ? `(no lock, ${trade.retries} ${trade.retries === 1 ? 'retry' : 'retries'})`
          : `It ${lockStory(trade)}, then found that.`), false);
  } else {
    say('#trade-result', `${userLabel(buyer)} could not buy ${what}: ${problemText(answer)}`, false);
  }
  await refreshAll();
}

/** Two buyers at once, fired by the server: the first buys, the second shows the lock at work. */
async function race(listing) {
  const first = $('#race-first').value;
  const second = $('#race-second').value;
  const strategy = $('#strategy').value;
  const box = $('#race-result');
  box.hidden = false;
  box.className = 'race running';
  box.replaceChildren(line(`${userLabel(first)} and ${userLabel(second)} are buying the ${listing.itemId} at the`
    + ` same moment (${strategy}; each trade holds its locks 3 s)…`));
  document.querySelectorAll('#listings .race').forEach((button) => { button.disabled = true; });
  const answer = await api('POST', '/market/races?strategy=' + encodeURIComponent(strategy),
      { itemId: listing.itemId, sellerId: listing.sellerId, price: listing.price, first, second });
  document.querySelectorAll('#listings .race').forEach((button) => { button.disabled = false; });
  if (!answer.ok) {
    box.className = 'race refused';
    box.replaceChildren(line(`The race did not run: ${problemText(answer)}`));
    await refreshAll();
    return;
  }
  box.className = 'race done';
  box.replaceChildren(...raceStory(answer.body, listing));
  await refreshAll();
}

function line(text, className) {
  const p = document.createElement('p');
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

/** The race in three lines: the first buyer, the second, and what their tokens say. */
function raceStory(race, listing) {
  const [first, second] = race.runners;
  const lines = race.runners.map((runner, index) => {
    const who = userLabel(runner.buyerId);
    const trade = runner.trade;
    const ended = runner.status === 201 ? `bought the ${listing.itemId}`
      : `did not get it: ${runner.detail.replace(/\.$/, '')}`;
    const locks = race.strategy === 'watch'
      ? `no lock; ${trade ? trade.retries : 0} WATCH ${trade && trade.retries === 1 ? 'retry' : 'retries'}`
      : waitText(trade);
    const row = line(`${index + 1}. ${who} ${locks}, then ${ended}.`, runner.status === 201 ? 'won' : 'lost');
    row.dataset.buyer = runner.buyerId;
    return row;
  });
  const shared = first.trade && second.trade && first.trade.tokens && second.trade.tokens
    ? second.trade.tokens.filter((token) => first.trade.tokens.some((other) => other.lock === token.lock)) : [];
  if (shared.length) {
    const parts = shared.map((token) => {
      const before = first.trade.tokens.find((other) => other.lock === token.lock);
      const difference = BigInt(token.value) - BigInt(before.value);
      return `on ${token.lock}, ${userLabel(first.buyerId)} got ${before.shortForm} and ${userLabel(second.buyerId)}`
        + ` ${token.shortForm}, larger by ${difference.toLocaleString('en')}`;
    });
    lines.push(line(`Fencing tokens: ${parts.join('; ')}: granted after ${userLabel(first.buyerId)}'s, so`
      + ` storage that keeps the highest token it has seen would refuse a late write carrying`
      + ` ${userLabel(first.buyerId)}'s. (Tokens keep pace with the Redis server's clock in microseconds, so the gap`
      + ' is about the time between the two grants.)', 'tokens'));
  } else if (race.strategy === 'watch') {
    lines.push(line('Under watch nothing waits: both trades ran at once, and the one that committed second was'
      + ' thrown away and retried.', 'tokens'));
  }
  return lines;
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
  const trade = answer.body && answer.body.trade;
  say('#trade-result', answer.ok
      ? `Listed ${userLabel(seller)}'s ${item} at ${price} (${strategy}): ${lockStory(trade)}.`
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
  say('#user-result', answer.ok ? `Created ${name || id}.` : `Not created: ${problemText(answer)}`, answer.ok);
  if (answer.ok) $('#new-user-id').value = '';
  await refreshAll();
});

$('#item-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const user = $('#item-user').value;
  const itemId = $('#item-id').value.trim();
  if (!user) { say('#user-result', 'Create a user first.', false); return; }
  const answer = await api('POST', '/users/' + encodeURIComponent(user) + '/inventory', { itemId });
  say('#user-result', answer.ok ? `Gave the ${itemId} to ${userLabel(user)}.` : `Not added: ${problemText(answer)}`,
      answer.ok);
  if (answer.ok) $('#item-id').value = '';
  await refreshAll();
});

async function loadScene(scene, what) {
  const answer = await api('POST', '/example?scene=' + scene);
  say('#user-result', answer.ok ? `Loaded ${what}.` : `Not loaded: ${problemText(answer)}`, answer.ok);
  await refreshAll();
}

$('#load-example').addEventListener('click', () => loadScene('street',
  'the market street: Ann, Ben, Cara and Dev, and four listings'));
$('#load-book').addEventListener('click', () => loadScene('book',
  'the book\'s scene (Redis in Action, 6.2): Frank (17), Bill (27), four sellers, four listings'));

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
    cell(row, `${trade.action} ${trade.itemId} of ${userLabel(trade.sellerId)} at ${trade.price}`
      + (trade.slow ? ', slow' : ''));
    cell(row, trade.strategy);
    cell(row, trade.locks === null ? 'none (WATCH)' : trade.locks.join(', '), 'locks');
    const contended = trade.waitedFor.length > 0;
    let waited = '';
    if (trade.locks !== null) {
      const whose = trade.waitedFor.map((id) => '#' + id).join(', ');
      if (trade.state === 'waiting') {
        waited = `${seconds(trade.waitedMillis)} so far` + (contended ? `, for ${whose} on ${trade.waitedOn.join(', ')}` : '');
      } else {
        waited = contended ? `${seconds(trade.waitedMillis)} for ${whose} on ${trade.waitedOn.join(', ')}` : 'at once';
      }
    }
    const waitedCell = cell(row, waited, 'waited' + (contended ? ' long' : ''));
    if (trade.locks !== null && !contended) waitedCell.title = `the call took ${seconds(trade.waitedMillis || 0)}`;
    const tokens = cell(row, '', 'tokens');
    trade.tokens.forEach((token) => {
      const item = document.createElement('div');
      item.textContent = tokenText(token);
      item.title = token.value;
      item.dataset.lock = token.lock;
      tokens.appendChild(item);
    });
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
  const locks = answer.body.locks.map((lock) => heldRow(lock.name, lock));
  $('#held-locks tbody').replaceChildren(...(locks.length ? locks : [emptyRow(3, 'no lock is held')]));
  const permits = answer.body.semaphores.flatMap((semaphore) =>
    semaphore.permits.map((permit) => heldRow(semaphore.name, permit)));
  $('#held-permits tbody').replaceChildren(...(permits.length ? permits : [emptyRow(3, 'no permit is held')]));
}

// One held lock or permit: the name, who holds it, the seconds its lease has left.
function heldRow(name, held) {
  const row = document.createElement('tr');
  cell(row, name);
  cell(row, holder(held.holder));
  cell(row, seconds(held.leftMillis), 'num');
  return row;
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
  await refreshUsers();
  await refreshAll();
  await refreshHeld();
  poll('/runs/table-6.3', renderTable);
  poll('/runs/lock-lab', renderLab);
  setInterval(() => { if (!document.hidden) { refreshHeld(); refreshTrades(); } }, 1000);
  setInterval(() => { if (!document.hidden) refreshAll(); }, 3000);
  document.body.dataset.ready = 'true';
}

start();
