import { request, type Agent } from 'node:http';

/** GETs `url` with the API key and resolves with the envelope's `data`; rejects on anything but 200 + ok. */
export function getJson<T>(agent: Agent, url: string, apiKey: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(text) as { status: string; data?: T };
        if (res.statusCode !== 200 || body.status !== 'ok') reject(new Error(`GET ${url} answered ${res.statusCode}: ${text.slice(0, 300)}`));
        else resolve(body.data!);
      });
    });
    req.on('error', reject);
    req.end();
  });
}
