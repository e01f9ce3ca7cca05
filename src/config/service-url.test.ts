import { describe, expect, it } from 'vitest';
import { redactServiceUrl, withoutPassword } from './service-url.js';

describe('redactServiceUrl', () => {
  it('hides the password and keeps user, host, port and database', () => {
    expect(redactServiceUrl('postgres://agentd:s3cr%40t@db.internal:5433/agentd')).toBe('postgres://agentd:***@db.internal:5433/agentd');
    expect(redactServiceUrl('redis://:hunter2@127.0.0.1:6379/0')).toBe('redis://:***@127.0.0.1:6379/0');
  });

  it('hides credentials passed as query parameters', () => {
    const shown = redactServiceUrl('postgresql://root@h/db?sslmode=require&password=hunter2&sslpassword=p2');
    expect(shown).toBe('postgresql://root@h/db?sslmode=require&password=***&sslpassword=***');
  });

  it('leaves a URL without credentials as it is', () => {
    expect(redactServiceUrl('postgres://root@127.0.0.1:5432/postgres')).toBe('postgres://root@127.0.0.1:5432/postgres');
  });

  it('hides the userinfo of a URL it cannot parse', () => {
    const shown = redactServiceUrl('postgres://user:hunter2@[bad host/db?password=x2');
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('x2');
    expect(shown).toBe('postgres://***@[bad host/db?password=***');
  });
});

describe('withoutPassword', () => {
  it('hides the URL password wherever a message repeats it, decoded', () => {
    expect(withoutPassword('auth failed for s3cr@t at h', 'postgres://u:s3cr%40t@h/db')).toBe('auth failed for *** at h');
    expect(withoutPassword('connect ECONNREFUSED', 'postgres://u@h/db')).toBe('connect ECONNREFUSED');
  });
});
