import { api } from '../api/client.js';
import type { Status } from '../api/types.js';
import { formatDuration } from '../components/format.js';
import { Loaded, Panel } from '../components/panel.js';
import { useResource } from '../use-resource.js';

export function StatusPanel() {
  const status = useResource(() => api<Status>('/status'), []);
  return (
    <Panel title="Runtime status" intro="What the service is running with right now.">
      <Loaded resource={status}>
        {(s) => (
          <dl class="facts">
            <dt>Version</dt><dd>{s.version}</dd>
            <dt>Up for</dt><dd>{formatDuration(s.uptime_s)}</dd>
            <dt>Default provider</dt><dd>{s.default_provider}</dd>
            <dt>Providers available</dt><dd>{s.providers_available.length > 0 ? s.providers_available.join(', ') : 'none'}</dd>
            <dt>Tools</dt><dd>{s.tool_count}</dd>
            <dt>API sessions</dt><dd>{s.session_count}</dd>
            <dt>Stored turns</dt><dd>{s.memory.present ? s.memory.turn_count : 'no memory'}</dd>
          </dl>
        )}
      </Loaded>
    </Panel>
  );
}
