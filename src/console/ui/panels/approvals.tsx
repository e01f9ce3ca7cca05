import { confirmAndDecide, grantText, pendingApprovals, recentApprovals } from '../api/approvals.js';
import type { Approval, OperatorDecision } from '../api/types.js';
import { Loaded, Panel, StatusBadge, TableWrap } from '../components/panel.js';
import { Time } from '../components/time.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { hrefFor, navigate, runsHref } from '../router.js';
import { useResource } from '../use-resource.js';

const DECISIONS: { decision: OperatorDecision; label: string; danger?: boolean }[] = [
  { decision: 'allow_once', label: 'Allow once' },
  { decision: 'allow_session', label: 'Allow for session' },
  { decision: 'deny', label: 'Deny', danger: true },
];

const KIND_TEXT: Record<Approval['kind'], string> = { network: 'Network request', tool: 'Tool call' };

/** `#/approvals?show=decided` lists the recent decisions too. */
export function ApprovalsPanel({ params }: { params: URLSearchParams }) {
  const showDecided = params.get('show') === 'decided';
  return (
    <Panel title="Approvals" intro="Requests a run waits on. Each shows exactly what would happen; unanswered ones are denied when they expire.">
      <div class="row" role="group" aria-label="Which approvals">
        <button type="button" class="chip" aria-pressed={!showDecided} onClick={() => navigate('approvals')}>Waiting</button>
        <button type="button" class="chip" aria-pressed={showDecided} onClick={() => navigate('approvals', { show: 'decided' })}>Recent, decided too</button>
      </div>
      {showDecided ? <Recent /> : <Pending />}
    </Panel>
  );
}

function Pending() {
  const approvals = useResource(pendingApprovals, []);
  const action = useAction();

  const decide = (approval: Approval, decision: OperatorDecision) => action.run(async () => {
    const decided = await confirmAndDecide(approval, decision);
    if (decided === null) return null;
    await approvals.reload();
    return `${KIND_TEXT[decided.kind]} ${decided.state === 'allowed' ? 'allowed' : 'denied'} (${decided.decision}).`;
  });

  return (
    <>
      <ActionOutcome action={action} />
      <Loaded resource={approvals}>
        {(list) => list.length === 0 ? <p class="muted">Nothing is waiting for a decision.</p> : list.map((approval) => (
          <div key={approval.id} class="card approval" data-approval-id={approval.id}>
            <h3>{KIND_TEXT[approval.kind]}</h3>
            <pre class="mono request">{approval.request}</pre>
            <dl class="facts">
              <dt>Run</dt><dd class="mono">{approval.run_id ? <a href={runsHref({ run: approval.run_id })}>{approval.run_id}</a> : '— (a chat)'}</dd>
              <dt>Session</dt><dd class="mono"><a href={hrefFor('memory', { session_id: approval.session_id })}>{approval.session_id}</a></dd>
              <dt>Asked</dt><dd><Time iso={approval.created_at} /></dd>
              <dt>Denied unless decided by</dt><dd><Time iso={approval.expires_at} /></dd>
              {approval.session_grant_allowed
                ? <><dt>Allow for session covers</dt><dd class="grant">{grantText(approval)}</dd></>
                : <><dt>Allow once only</dt><dd class="grant">{approval.grant_rule !== null
                  ? `this overrides the explicit deny rule ${approval.grant_rule}, which is never lifted for a session`
                  : 'no session grant is offered for this request'}</dd></>}
            </dl>
            <div class="row">
              {DECISIONS.filter(({ decision }) => decision !== 'allow_session' || approval.session_grant_allowed).map(({ decision, label, danger }) => (
                <button key={decision} type="button" class={danger ? 'danger' : undefined} onClick={() => decide(approval, decision)}
                  aria-label={`${label}: ${approval.request}`}>
                  {label}
                </button>
              ))}
            </div>
          </div>
        ))}
      </Loaded>
    </>
  );
}

/** The 50 most recent approvals with their outcome; deciding stays in the Waiting view. */
function Recent() {
  const approvals = useResource(recentApprovals, []);
  return (
    <Loaded resource={approvals}>
      {(list) => list.length === 0 ? <p class="muted">No approval has been asked for yet.</p> : (
        <TableWrap label="Recent approvals">
          <table>
            <thead><tr><th scope="col">Asked</th><th scope="col">Kind</th><th scope="col">Request</th><th scope="col">State</th><th scope="col">Decision</th><th scope="col">By</th><th scope="col">Decided</th><th scope="col">Run</th></tr></thead>
            <tbody>
              {list.map((a) => (
                <tr key={a.id} data-approval-id={a.id}>
                  <td><Time iso={a.created_at} /></td><td>{KIND_TEXT[a.kind]}</td><td class="mono task-preview">{a.request}</td>
                  <td><StatusBadge status={a.state} /></td><td>{a.decision ?? '—'}</td><td>{a.decided_by ?? '—'}</td><td><Time iso={a.decided_at} /></td>
                  <td>{a.run_id ? <a class="mono" href={runsHref({ run: a.run_id })}>{a.run_id}</a> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Loaded>
  );
}
