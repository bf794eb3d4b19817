// A client of hermes's Responses API on the official openai npm
// package, used by the API server's tests the way any OpenAI SDK user
// would call it.
//
// Usage: node openai_responses.mjs '<plan JSON>'
//
//   {"sdk": "/.../node_modules/openai", "baseURL": "http://127.0.0.1:8642/v1",
//    "apiKey": "...", "foreign": ["resp_...", ...]}
//
// It streams a response and reads its events, continues it with
// previous_response_id, retrieves both, tries to continue the earlier
// one again and to retrieve the foreign ids (responses hermes must not
// know), deletes the conversation and retrieves it again; it prints one
// JSON object with what it saw.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const plan = JSON.parse(process.argv[2]);
// ESM ignores NODE_PATH, so the package is imported by absolute path.
const { default: OpenAI } = await import(pathToFileURL(join(plan.sdk, 'index.mjs')).href);
const client = new OpenAI({ baseURL: plan.baseURL, apiKey: plan.apiKey, maxRetries: 0 });
const out = {};

const status = async (p) => {
  try {
    await p;
    return 200;
  } catch (e) {
    return e.status ?? String(e);
  }
};

const stream = await client.responses.create({ model: 'hermes', input: 'stream please', stream: true });
const types = [];
const sequence = [];
let deltas = '';
let completed = null;
for await (const event of stream) {
  types.push(event.type);
  sequence.push(event.sequence_number);
  if (event.type === 'response.output_text.delta') deltas += event.delta;
  if (event.type === 'response.completed') completed = event.response;
}
out.stream = {
  types, sequence, deltas,
  id: completed?.id, status: completed?.status, items: completed?.output?.length,
  text: completed?.output?.map((o) => o.content.map((c) => c.text).join('')).join(''),
  usage: completed?.usage?.total_tokens ?? null,
};

const second = await client.responses.create({ model: 'hermes', input: 'and then?', previous_response_id: completed.id });
out.second = { id: second.id, text: second.output_text, previous: second.previous_response_id };

const got1 = await client.responses.retrieve(completed.id);
const got2 = await client.responses.retrieve(second.id);
out.retrieved = [got1, got2].map((r) => ({ id: r.id, object: r.object, status: r.status, text: r.output_text, previous: r.previous_response_id }));

out.forkStatus = await status(client.responses.create({ model: 'hermes', input: 'again', previous_response_id: completed.id }));
out.foreign = {};
for (const id of plan.foreign) {
  out.foreign[id] = [
    await status(client.responses.retrieve(id)),
    await status(client.responses.create({ model: 'hermes', input: 'read it', previous_response_id: id })),
    await status(client.responses.delete(id)),
  ];
}

const deleted = await client.responses.delete(second.id).asResponse();
out.deleted = await deleted.json();
out.afterDelete = [await status(client.responses.retrieve(completed.id)), await status(client.responses.retrieve(second.id))];
console.log(JSON.stringify(out));
