#!/usr/bin/env node
// Tools benchmark: what our tool catalogue, pooled driver and query loop add on top of the protocol call itself,
// measured side by side in one run against the real servers of tools/workspace/services (Dovecot, Radicale).
// On demand only (it is not a test): `node tools/bench/src/tools-bench.mjs [--rounds 30]`.
//
//   email     ours: POST /api/v1/queries {"text": "did I get mail from alice?", "tools": ["email_search"]} on our
//             self-hosted server with an IMAP connection; the tool call's time is tool_call.started → completed as
//             the client receives them (the call runs on the pooled, logged-in IMAP session);
//             floor: the same search (FROM alice, latest 5 envelopes) with imapflow on an open connection.
//   calendar  ours: "what's on my calendar on <day>?" with a CalDAV connection; the tool call's time likewise;
//             floor: tsdav fetchCalendarObjects with the same time range on a logged-in client.
// Rounds alternate which path goes first. Targets (informational): tool call ≤ 1.2 × floor (medians).
//
// Needs the build (`NX_DAEMON=false npx nx run-many -t build`) and the services (`bash tools/workspace/services/mail.sh`,
// `bash tools/workspace/services/calendar.sh`).
import { randomBytes } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { DAVClient } from 'tsdav';
import { formatRatio, verdict } from './lib/format.mjs';
import { interleaved, median } from './lib/measure.mjs';
import {
  freePort,
  makeTempDir,
  removeTempDirs,
  spawnNode,
  stopAll,
  waitForHealthz,
} from './lib/processes.mjs';
import { DEFAULT_SERVER, ourServerEnv, readToken, serverArgs } from './lib/server.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 30;
const CALDAV = 'http://127.0.0.1:5232';
const BASIC = `Basic ${Buffer.from('alice:secret').toString('base64')}`;

async function main() {
  const dataDir = makeTempDir('assistant-tools-bench-');
  const port = await freePort();
  const server = spawnNode(
    'ours',
    DEFAULT_SERVER,
    serverArgs(DEFAULT_SERVER),
    ourServerEnv(dataDir, port, { ASSISTANT_BUILTIN_PACING_MS: '0', ASSISTANT_TIMEZONE: 'UTC' }),
  );
  await waitForHealthz(server, port, 50);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const token = readToken(dataDir);
  const api = (path, body) =>
    fetch(`${base}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });

  // A calendar of its own, with a few events on the measured day.
  const calendar = `${CALDAV}/alice/bench-${randomBytes(4).toString('hex')}/`;
  await fetch(calendar, { method: 'MKCALENDAR', headers: { authorization: BASIC } });
  for (let i = 0; i < 10; i++) {
    const uid = `bench-${i}`;
    await fetch(`${calendar}${uid}.ics`, {
      method: 'PUT',
      headers: { authorization: BASIC, 'content-type': 'text/calendar' },
      body: [
        'BEGIN:VCALENDAR',
        'VERSION:2.0',
        'PRODID:-//bench//EN',
        'BEGIN:VEVENT',
        `UID:${uid}`,
        'DTSTAMP:20261101T000000Z',
        `DTSTART:20261204T${String(8 + i).padStart(2, '0')}0000Z`,
        `DTEND:20261204T${String(8 + i).padStart(2, '0')}3000Z`,
        `SUMMARY:Event ${i}`,
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\r\n'),
    });
  }
  const mailbox = {
    imap_host: '127.0.0.1',
    imap_port: 10143,
    imap_tls: false,
    smtp_host: '127.0.0.1',
    smtp_port: 10025,
    smtp_tls: false,
    username: 'alice',
    from_address: 'alice@example.test',
  };
  for (const body of [
    { family: 'email', provider: 'imap', settings: mailbox, secrets: { password: 'secret' } },
    {
      family: 'calendar',
      provider: 'caldav',
      settings: { url: calendar, username: 'alice' },
      secrets: { password: 'secret' },
    },
  ]) {
    const res = await api('/connections', body);
    if (res.status !== 201) throw new Error(`connection refused: ${await res.text()}`);
  }

  /** One query through our server: its total time and its tool call's, as the client receives the events. */
  async function ours(text, tool) {
    const started = performance.now();
    const res = await api('/queries', { text, tools: [tool] });
    let toolStart = 0;
    let toolEnd = 0;
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      const now = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      if (!toolStart && buffer.includes('event: tool_call.started')) toolStart = now;
      if (!toolEnd && buffer.includes('event: tool_call.completed')) {
        toolEnd = now;
        if (!buffer.includes('"status":"ok"'))
          throw new Error(`the tool call failed: ${buffer.slice(0, 500)}`);
      }
    }
    return { total: performance.now() - started, tool: toolEnd - toolStart };
  }

  const imap = new ImapFlow({
    host: '127.0.0.1',
    port: 10143,
    secure: false,
    auth: { user: 'alice', pass: 'secret' },
    logger: false,
  });
  await imap.connect();
  async function rawEmail() {
    const started = performance.now();
    const lock = await imap.getMailboxLock('INBOX');
    try {
      const uids = (await imap.search({ from: 'alice' }, { uid: true })) || [];
      const latest = uids.sort((a, b) => b - a).slice(0, 5);
      if (latest.length)
        for await (const _ of imap.fetch(latest, { envelope: true, flags: true }, { uid: true }));
    } finally {
      lock.release();
    }
    return performance.now() - started;
  }
  const dav = new DAVClient({
    serverUrl: calendar,
    credentials: { username: 'alice', password: 'secret' },
    authMethod: 'Basic',
    defaultAccountType: 'caldav',
  });
  await dav.login();
  const [davCalendar] = (await dav.fetchCalendars()).filter(
    (c) => c.url.replace(/\/$/, '') === calendar.replace(/\/$/, ''),
  );
  async function rawCalendar() {
    const started = performance.now();
    await dav.fetchCalendarObjects({
      calendar: davCalendar,
      timeRange: { start: '2026-12-04T00:00:00Z', end: '2026-12-05T00:00:00Z' },
    });
    return performance.now() - started;
  }

  const scenarios = [
    { name: 'email search', ours: () => ours('did I get mail from alice?', 'email_search'), floor: rawEmail },
    {
      name: 'calendar day',
      ours: () => ours("what's on my calendar on 4 December?", 'calendar_list_events'),
      floor: rawCalendar,
    },
  ];
  console.log(
    `Tools benchmark: ${rounds} rounds, medians in ms (ours: tool call as received, and the whole query)`,
  );
  console.log('scenario        floor   ours-tool   ours-query   tool/floor   target ≤ 1.2×');
  for (const scenario of scenarios) {
    await scenario.ours();
    await scenario.floor();
    const tool = [];
    const total = [];
    const floor = [];
    for (let round = 0; round < rounds; round++) {
      for (const path of interleaved(round, 'ours', 'floor')) {
        if (path === 'ours') {
          const t = await scenario.ours();
          tool.push(t.tool);
          total.push(t.total);
        } else floor.push(await scenario.floor());
      }
    }
    const ratio = median(tool) / median(floor);
    console.log(
      `${scenario.name.padEnd(14)} ${median(floor).toFixed(2).padStart(6)} ${median(tool).toFixed(2).padStart(11)} ${median(total).toFixed(2).padStart(12)} ${formatRatio(ratio).padStart(12)}   ${verdict(ratio <= 1.2)}`,
    );
  }
  await imap.logout();
}

main()
  .catch((error) => {
    console.error(`tools-bench: ${error.stack ?? error}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopAll();
    removeTempDirs();
  });
