import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { failureMessage } from './api/client.js';

/**
 * How often the visible panel re-reads its data (docs/decisions.md#the-console-polls-only-the-visible-panel). Only the panel
 * on screen is mounted, so an idle console makes two requests per interval (that panel and the
 * approvals badge), and none while its tab is hidden: well under half of the default rate limit.
 */
export const POLL_INTERVAL_MS = 15_000;

export interface Resource<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload(): Promise<void>;
}

/**
 * Loads `load()` now and whenever `deps` change; with `poll`, again every interval (`poll` in
 * milliseconds, or `POLL_INTERVAL_MS`) while the page is visible, and at once when it becomes visible again. The last good data stays on screen
 * next to an error, and an answer to an outdated request is dropped.
 */
export function useResource<T>(load: () => Promise<T>, deps: unknown[], poll: boolean | number = true): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await latest.current();
      if (mine === generation.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (mine === generation.current) setState((s) => ({ data: s.data, error: failureMessage(error), loading: false }));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, deps);

  useEffect(() => {
    if (!poll) return undefined;
    let timer: number | undefined;
    const schedule = () => {
      window.clearInterval(timer);
      timer = document.hidden ? undefined : window.setInterval(() => void reload(), poll === true ? POLL_INTERVAL_MS : poll);
    };
    const onVisibility = () => {
      if (!document.hidden) void reload();
      schedule();
    };
    schedule();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [poll, reload]);

  return { ...state, reload };
}
