// A small client on the official openai npm package, used by the API
// server's tests to talk to hermes serve the way Open WebUI or any
// OpenAI SDK user would.
//
// Usage: node openai_client.mjs '<plan JSON>'
//
//   {"sdk": "/.../node_modules/openai", "baseURL": "http://127.0.0.1:8642/v1",
//    "apiKey": "..."}
//
// It lists the models, asks a whole completion, a streamed one, and two
// turns of one stored session, two responses chained by
// previous_response_id, then calls with a wrong key; it prints one
// JSON object with what it saw.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const plan = JSON.parse(process.argv[2]);
// ESM ignores NODE_PATH, so the package is imported by absolute path.
const { default: OpenAI } = await import(pathToFileURL(join(plan.sdk, 'index.mjs')).href);
const client = new OpenAI({ baseURL: plan.baseURL, apiKey: plan.apiKey, maxRetries: 0 });
const out = {};

const models = await client.models.list();
out.models = models.data.map((m) => m.id);

const whole = await client.chat.completions.create({
  model: 'hermes',
  messages: [{ role: 'user', content: 'whole please' }],
});
out.whole = { content: whole.choices[0].message.content, finish: whole.choices[0].finish_reason, object: whole.object };

const stream = await client.chat.completions.create({
  model: 'hermes',
  messages: [{ role: 'user', content: 'stream please' }],
  stream: true,
  stream_options: { include_usage: true },
});
let text = '';
let finish = null;
let usage = null;
let chunks = 0;
for await (const chunk of stream) {
  chunks++;
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    text += c.delta?.content ?? '';
    if (c.finish_reason) finish = c.finish_reason;
  }
}
out.stream = { content: text, finish, usage: usage !== null, chunks };

const first = await client.chat.completions
  .create({ model: 'hermes', messages: [{ role: 'user', content: 'my name is Ada' }] },
    { headers: { 'X-Hermes-Session-Id': 'new' } })
  .withResponse();
const session = first.response.headers.get('x-hermes-session-id');
const second = await client.chat.completions.create(
  { model: 'hermes', messages: [{ role: 'user', content: 'what is my name?' }] },
  { headers: { 'X-Hermes-Session-Id': session } });
out.session = { id: session, first: first.data.choices[0].message.content, second: second.choices[0].message.content };

const r1 = await client.responses.create({ model: 'hermes', input: 'remember 42' });
const r2 = await client.responses.create({ model: 'hermes', input: 'which number?', previous_response_id: r1.id });
out.responses = { first: r1.output_text, second: r2.output_text, previous: r2.previous_response_id, id: r1.id };

try {
  await new OpenAI({ baseURL: plan.baseURL, apiKey: 'wrong-key', maxRetries: 0 }).models.list();
  out.wrongKey = 'accepted';
} catch (e) {
  out.wrongKey = e.status;
}
console.log(JSON.stringify(out));
