import { describe, expect, it } from 'vitest';
import { StorageFullError, StorageUnavailableError } from '../ports/errors.js';
import { storageError } from './database.js';

const driverError = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('storageError', () => {
  it.each([
    ['the server shutting down', driverError('terminating connection due to administrator command', '57P01')],
    ['too many connections', driverError('sorry, too many clients already', '53300')],
    ['a connection exception', driverError('connection failure', '08006')],
    ['a refused connection', driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection that ended', driverError('Connection terminated unexpectedly')],
    ['a pool that found no free connection in time', driverError('timeout exceeded when trying to connect')],
  ])('maps %s to StorageUnavailableError (503), keeping the cause', (_name, error) => {
    const mapped = storageError(error);
    expect(mapped).toBeInstanceOf(StorageUnavailableError);
    expect((mapped as Error).cause).toBe(error);
    expect((mapped as Error).message).toBe('the database is unavailable: nothing was read or written');
  });

  it('maps a full disk to StorageFullError (507)', () => {
    expect(storageError(driverError('could not extend file: No space left on device', '53100'))).toBeInstanceOf(StorageFullError);
  });

  it('leaves every other error as it is: a constraint or a bug is not the database being down', () => {
    const unique = driverError('duplicate key value violates unique constraint "runs_id_key"', '23505');
    const syntax = driverError('syntax error at or near "SELEC"', '42601');
    expect(storageError(unique)).toBe(unique);
    expect(storageError(syntax)).toBe(syntax);
  });
});
