#!/usr/bin/env node
// A small, realistic MCP host built on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x),
// used as a client under test for `mcpspec client`.
//
//   node ts-client.mjs [--timeout SECONDS] [--trace] -- CMD [ARGS...]   stdio (StdioClientTransport)
//   node ts-client.mjs [--timeout SECONDS] [--trace] [--delete-session] [--auth [--client-metadata-url URL]
//                      [--client-id ID --client-secret S]] --url URL                      Streamable HTTP
//   node ts-client.mjs [--timeout SECONDS] [--trace] --sse-url URL      legacy HTTP+SSE
//
// Declares roots (listChanged), sampling and elicitation and answers them (one file:// root, a fixed
// text completion with a model name, decline). Workflow: connect (initialize), ping, list tools,
// resources and prompts following nextCursor, call the first tool with arguments made from its
// inputSchema, read the first resource, close. One line per step on stdout; --trace prints every
// JSON-RPC message on stderr; --delete-session ends a Streamable HTTP session with DELETE before close
// (the SDK's close() alone does not). --auth gives the Streamable HTTP transport the SDK's OAuth
// support (an OAuthClientProvider kept in memory): on a 401 the SDK discovers the authorization
// server, registers, and sends the user agent to the authorize URL; this host plays that user agent
// (it follows the URL without a login, as a demo authorization server approves at once), hands the
// code to transport.finishAuth() and connects again. --client-metadata-url gives the provider a client
// ID metadata document URL (the SDK uses it where the authorization server advertises support);
// --client-id and --client-secret (empty: none) are static credentials from a pre-registration, which
// the provider holds before the flow starts. Exit 0 when the workflow completed, 1 when a
// step failed, 2 on usage.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

const MAX_PAGES = 50;

function usage(msg) {
  process.stderr.write(`ts-client: ${msg}\nusage: ts-client.mjs [--timeout S] [--trace] [--delete-session] (-- CMD [ARGS...] | --url URL | --sse-url URL)\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { timeout: 30, trace: false, deleteSession: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      opts.command = argv.slice(i + 1);
      if (opts.command.length === 0) usage('no command after --');
      break;
    } else if (['--url', '--sse-url', '--timeout', '--client-metadata-url', '--client-id', '--client-secret'].includes(a)) {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      const v = argv[++i];
      if (a === '--url') opts.url = v;
      else if (a === '--sse-url') opts.sseUrl = v;
      else if (a === '--client-metadata-url') opts.clientMetadataUrl = v;
      else if (a === '--client-id') opts.clientId = v;
      else if (a === '--client-secret') opts.clientSecret = v;
      else opts.timeout = Number(v);
    } else if (a === '--trace') {
      opts.trace = true;
    } else if (a === '--delete-session') {
      opts.deleteSession = true;
    } else if (a === '--auth') {
      opts.auth = true;
    } else {
      usage(`unknown argument ${a}`);
    }
  }
  const chosen = [opts.command, opts.url, opts.sseUrl].filter(Boolean).length;
  if (chosen !== 1) usage('give exactly one of -- CMD, --url, --sse-url');
  if (!(opts.timeout > 0)) usage('--timeout must be a positive number of seconds');
  if (opts.auth && !opts.url) usage('--auth goes with --url');
  return opts;
}

function sdkVersion() {
  try {
    const url = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function step(name, detail) {
  process.stdout.write(`${name}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}\n`);
}

// A plausible value for a JSON Schema, enough for a host that fills in tool arguments itself.
function sample(schema, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 4) return null;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find(t => t !== 'null') : schema.type;
  switch (type) {
    case 'string': return 'hello from ts-client';
    case 'integer': return Math.max(1, schema.minimum ?? 1);
    case 'number': return Math.max(1, schema.minimum ?? 1);
    case 'boolean': return true;
    case 'array': return schema.items && schema.minItems ? [sample(schema.items, depth + 1)] : [];
    case 'object':
    default: {
      const out = {};
      for (const [k, sub] of Object.entries(schema.properties ?? {})) out[k] = sample(sub, depth + 1);
      return out;
    }
  }
}

async function listAll(label, fetchPage, key) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const page = await fetchPage(cursor === undefined ? {} : { cursor });
    pages++;
    items.push(...(page[key] ?? []));
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages < MAX_PAGES);
  step(label, { count: items.length, pages, names: items.map(x => x.name ?? x.uri) });
  return items;
}

function makeTransport(opts) {
  if (opts.command) {
    return new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'inherit' });
  }
  if (opts.url) {
    const authProvider = opts.auth ? (opts.authProvider ??= new HostOAuthProvider(opts)) : undefined;
    return new StreamableHTTPClientTransport(new URL(opts.url), { authProvider });
  }
  return new SSEClientTransport(new URL(opts.sseUrl));
}

// The SDK's OAuth client provider contract, kept in memory. The redirect URI is a loopback one
// nothing listens on: the host reads the code off the authorize endpoint's redirect instead.
const REDIRECT_URI = 'http://127.0.0.1:9/ts-client-callback';
class HostOAuthProvider {
  constructor(opts) {
    this.code = undefined;
    this.sentState = undefined;
    if (opts.clientMetadataUrl) this.clientMetadataUrl = opts.clientMetadataUrl;
    if (opts.clientId) {
      // Pre-registered: the SDK finds client information and does not register.
      this.info = { client_id: opts.clientId };
      if (opts.clientSecret) this.info.client_secret = opts.clientSecret;
    }
  }
  // The SDK puts this in the authorization request; the answer must bring it back unchanged.
  state() {
    this.sentState = randomUUID();
    return this.sentState;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return {
      client_name: 'mcpspec-ts-client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
    step('oauth tokens saved', { scope: tokens.scope ?? null });
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  // The user agent's part: follow the authorize URL once, without a login.
  async redirectToAuthorization(url) {
    step('oauth authorize', url.origin + url.pathname);
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorize endpoint answered ${res.status} without a redirect`);
    const back = new URL(location, url);
    const error = back.searchParams.get('error');
    if (back.searchParams.get('state') !== this.sentState) {
      throw new Error('the authorization response does not bring back the state sent: discarded');
    }
    if (error) throw new Error(`the authorization server refused: ${error}`);
    this.code = back.searchParams.get('code') ?? undefined;
    if (!this.code) throw new Error(`no code in the redirect to ${back.origin}${back.pathname}`);
  }
}

// Connects; with --auth, a 401 runs the SDK's authorization flow (the provider above plays the user
// agent) and the connection is tried again with a fresh transport, once.
async function connect(client, opts, seen) {
  const transport = makeTransport(opts);
  watchTransport(transport, opts.trace, seen);
  try {
    await client.connect(transport);
    return transport;
  } catch (error) {
    const provider = opts.authProvider;
    if (!opts.auth || !(error instanceof UnauthorizedError) || !provider?.code) throw error;
    step('oauth code received');
    await transport.finishAuth(provider.code);
    provider.code = undefined;
    const again = makeTransport(opts);
    watchTransport(again, opts.trace, seen);
    await client.connect(again);
    return again;
  }
}

// Watches every message: prints it with --trace, and notes the version the server's initialize
// result names (the SDK exposes it only on the Streamable HTTP transport).
function watchTransport(transport, trace, seen) {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if (trace) process.stderr.write(`--> ${JSON.stringify(message)}\n`);
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  // Protocol.connect installs onmessage before it calls start(), so wrap it there.
  transport.start = async () => {
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (trace) process.stderr.write(`<-- ${JSON.stringify(message)}\n`);
      if (seen.negotiated === undefined && typeof message?.result?.protocolVersion === 'string') {
        seen.negotiated = message.result.protocolVersion;
      }
      inner?.(message, extra);
    };
    return start();
  };
}

async function run(opts) {
  const client = new Client(
    { name: 'mcpspec-ts-client', version: sdkVersion() },
    {
      capabilities: {
        roots: { listChanged: true },
        sampling: {},
        elicitation: { form: {} },
      },
    },
  );
  const rootUri = pathToFileURL(process.cwd()).href;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    step('handled roots/list', rootUri);
    return { roots: [{ uri: rootUri, name: 'workspace' }] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async request => {
    step('handled sampling/createMessage', { messages: request.params.messages.length });
    return {
      role: 'assistant',
      content: { type: 'text', text: 'This is a fixed answer from mcpspec-ts-client.' },
      model: 'mcpspec-fixed-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async request => {
    step('handled elicitation/create', { message: request.params.message, action: 'decline' });
    return { action: 'decline' };
  });
  client.fallbackNotificationHandler = async notification => {
    step('notification', notification.method);
  };
  const seen = { negotiated: undefined, closing: false };
  client.onerror = error => {
    // SSEClientTransport.close() aborts its GET and reports that abort as an error; not a failure.
    if (seen.closing && error?.name === 'AbortError') return;
    process.stderr.write(`ts-client: transport error: ${error?.message ?? error}\n`);
  };

  step('sdk', { version: sdkVersion(), offers: LATEST_PROTOCOL_VERSION });

  const transport = await connect(client, opts, seen);
  const server = client.getServerVersion();
  step('connected', { server: `${server?.name} ${server?.version}`, negotiated: seen.negotiated, capabilities: Object.keys(client.getServerCapabilities() ?? {}) });

  await client.ping();
  step('ping', 'ok');

  const caps = client.getServerCapabilities() ?? {};
  const tools = caps.tools ? await listAll('tools/list', p => client.listTools(p), 'tools') : [];
  const resources = caps.resources ? await listAll('resources/list', p => client.listResources(p), 'resources') : [];
  if (caps.prompts) await listAll('prompts/list', p => client.listPrompts(p), 'prompts');

  if (tools.length) {
    const tool = tools[0];
    const args = sample(tool.inputSchema);
    const result = await client.callTool({ name: tool.name, arguments: args });
    step('tools/call', { name: tool.name, arguments: args, isError: result.isError ?? false, content: result.content?.map(c => c.type) });
  }
  if (resources.length) {
    const result = await client.readResource({ uri: resources[0].uri });
    step('resources/read', { uri: resources[0].uri, contents: result.contents.length });
  }

  if (opts.deleteSession && typeof transport.terminateSession === 'function') {
    // The SDK's close() only aborts; a host that wants the SHOULD-level DELETE asks for it.
    await transport.terminateSession();
    step('session deleted', 'ok');
  }
  seen.closing = true;
  await client.close();
  step('closed', 'ok');
}

const opts = parseArgs(process.argv.slice(2));
const deadline = setTimeout(() => {
  process.stderr.write(`ts-client: gave up after ${opts.timeout}s\n`);
  process.exit(1);
}, opts.timeout * 1000);
deadline.unref();
try {
  await run(opts);
  clearTimeout(deadline);
  process.exit(0);
} catch (error) {
  process.stderr.write(`ts-client: ${error?.stack ?? error}\n`);
  process.exit(1);
}
