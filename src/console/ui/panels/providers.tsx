import { api } from '../api/client.js';
import type { Provider } from '../api/types.js';
import { yesNo } from '../components/format.js';
import { Loaded, Panel, TableWrap } from '../components/panel.js';
import { useResource } from '../use-resource.js';

export function ProvidersPanel() {
  const providers = useResource(() => api<{ providers: Provider[] }>('/providers'), []);
  return (
    <Panel title="Providers" intro="The model providers this service can use. Change the default under Controls.">
      <Loaded resource={providers}>
        {({ providers: list }) => (
          <TableWrap label="Providers">
            <table>
              <thead><tr><th scope="col">Name</th><th scope="col">Model</th><th scope="col">Available</th><th scope="col">Default</th></tr></thead>
              <tbody>
                {list.map((p) => (
                  <tr key={p.name}><td>{p.name}</td><td>{p.model}</td><td>{yesNo(p.available)}</td><td>{p.is_default ? 'default' : ''}</td></tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Loaded>
    </Panel>
  );
}
