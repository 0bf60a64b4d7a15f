/**
 * OpenAPI 3.1 generated from the route schemas (@fastify/swagger), served at `/openapi.json`, and a
 * docs page at `/docs` (@fastify/swagger-ui, assets bundled, no CDN). Keyed routes get the
 * `x-api-key` security requirement from the access table.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { accessFor } from '../access.ts';
import { unencapsulated } from './unencapsulated.ts';

export const API_VERSION = '2.0.0';

export const docsPlugin = unencapsulated(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pmdata API',
        version: API_VERSION,
        description:
          'Prediction-market data: markets, trades, activity and analytics across venues. Every data route ' +
          'needs an API key in the `x-api-key` header. Errors use `{error, message}`; validation failures ' +
          'answer 422 `{detail: [{loc, msg, type}]}`. Keyed responses carry RateLimit-Limit, ' +
          'RateLimit-Remaining and RateLimit-Reset (seconds).',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
    },
    transform: ({ schema, url, route }) => {
      const access = route?.config?.access ?? accessFor(url);
      const s = { ...(schema ?? {}) } as Record<string, unknown>;
      if (access.kind === 'keyed') s.security = [{ apiKey: [] }];
      // Admin routes (their own key, api/plugins/admin.ts) are not part of the API's description.
      if (access.kind === 'admin') s.hide = true;
      return { schema: s as never, url };
    },
    // OpenAPI marks a deprecated parameter on the parameter object, not only inside its schema.
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const item of Object.values(openapiObject.paths ?? {})) {
        for (const op of Object.values(item ?? {})) {
          for (const param of (
            op as { parameters?: { schema?: { deprecated?: boolean }; deprecated?: boolean }[] }
          ).parameters ?? []) {
            if (param.schema?.deprecated) param.deprecated = true;
          }
        }
      }
      return openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}, 'pmdata-docs');
