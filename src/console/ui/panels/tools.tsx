import { api } from '../api/client.js';
import type { Tool } from '../api/types.js';
import { Loaded, Panel } from '../components/panel.js';
import { useResource } from '../use-resource.js';

export function ToolsPanel() {
  const tools = useResource(() => api<{ tools: Tool[] }>('/tools'), []);
  return (
    <Panel title="Tools" intro="What the agent may call while it works, with the arguments each one takes.">
      <Loaded resource={tools}>
        {({ tools: list }) => (
          <ul class="cards">
            {list.map((tool) => (
              <li key={tool.name} class="card">
                <h3>{tool.name}</h3>
                <p>{tool.description}</p>
                <details>
                  <summary>Arguments (JSON schema)</summary>
                  <pre>{JSON.stringify(tool.schema, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </Panel>
  );
}
