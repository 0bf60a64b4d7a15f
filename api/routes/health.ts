import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

const Health = Type.Object({ status: Type.Literal('healthy') });

/** SPEC: `GET /health` → `{"status":"healthy"}`; no key, never rate limited (api/access.ts). */
export async function healthRoutes(app: FastifyInstance) {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Health check',
        description: 'Answers while the API process serves requests. No key; exempt from rate limits.',
        tags: ['meta'],
        response: { 200: Health },
      },
    },
    async () => ({ status: 'healthy' as const }),
  );
}
