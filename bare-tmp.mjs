import Fastify from 'fastify';
const app = Fastify();
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: 18081 });
