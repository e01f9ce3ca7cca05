import { useState } from 'preact/hooks';
import { failureMessage } from '../api/client.js';
import { ErrorNotice } from './panel.js';

export interface Action {
  error: string | null;
  notice: string | null;
  /**
   * Runs `work`; what it resolves with is shown as the outcome (null: nothing to say, e.g. the
   * operator said no in the dialog), what it throws as the error.
   */
  run(work: () => Promise<string | null>): Promise<void>;
}

/** The state of an operator's action in a panel: its outcome or its error, shown where it was taken. */
export function useAction(): Action {
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  return {
    error,
    notice,
    async run(work) {
      setError(null);
      setNotice(null);
      try {
        setNotice(await work());
      } catch (failure) {
        setError(failureMessage(failure));
      }
    },
  };
}

export function ActionOutcome({ action }: { action: Action }) {
  return (
    <>
      <ErrorNotice message={action.error} />
      {action.notice && <p class="notice" role="status">{action.notice}</p>}
    </>
  );
}
