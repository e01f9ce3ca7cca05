import { describe, expect, it } from 'vitest';
import { PolicyViolationError, RequestTimeoutError } from '../gateway/errors.js';
import { toProviderError } from './upstream-errors.js';

/** SDKs wrap what the gateway's fetch threw (APIConnectionError with the original as `cause`). */
function wrapped(cause: Error): Error {
  return Object.assign(new Error('Connection error.'), { name: 'APIConnectionError', cause });
}

const context = { host: 'api.example', apiKey: null, keyEnv: null, signal: new AbortController().signal };

describe('toProviderError', () => {
  it('names the gateway deadline as a timeout, not as a broken response', () => {
    const error = toProviderError('openai', wrapped(new RequestTimeoutError('api.example', 500)), context);
    expect(error).toMatchObject({ kind: 'timeout', message: "provider 'openai' did not answer in time (api.example)" });
  });

  it('still names a policy refusal as such', () => {
    const denial = new PolicyViolationError('api.example', 'provider', 'host', null, 'host api.example:443 is not allowed for category provider');
    expect(toProviderError('openai', wrapped(denial), context)).toMatchObject({ kind: 'policy' });
  });
});
