/**
 * New API keys as Elasticsearch makes them: a 20-character base64url id, a 22-character base64url
 * secret (128 random bits), and `encoded`, the base64 of `id:api_key` that clients send as
 * `Authorization: ApiKey <encoded>` (the official client's `auth: { apiKey }`).
 */
import { randomBytes } from 'node:crypto';

export interface NewApiKey {
  id: string;
  name: string;
  api_key: string;
  encoded: string;
}

export function newApiKey(name: string): NewApiKey {
  const id = randomBytes(15).toString('base64url');
  const apiKey = randomBytes(16).toString('base64url');
  return { id, name, api_key: apiKey, encoded: encodedApiKey(id, apiKey) };
}

export const encodedApiKey = (id: string, apiKey: string) => Buffer.from(`${id}:${apiKey}`).toString('base64');
