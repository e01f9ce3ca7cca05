import { confirmAndDecide, grantText, pendingApprovals } from '../api/approvals.js';
import type { Approval, OperatorDecision } from '../api/types.js';
import { Time } from '../components/time.js';
import { Loaded, Panel } from '../components/panel.js';
import { ActionOutcome, useAction } from '../components/use-action.js';
import { useResource } from '../use-resource.js';

const DECISIONS: { decision: OperatorDecision; label: string; danger?: boolean }[] = [
  { decision: 'allow_once', label: 'Allow once' },
  { decision: 'allow_session', label: 'Allow for session' },
  { decision: 'deny', label: 'Deny', danger: true },
];

const KIND_TEXT: Record<Approval['kind'], string> = { network: 'Network request', tool: 'Tool call' };

export function ApprovalsPanel() {
  const approvals = useResource(pendingApprovals, []);
  const action = useAction();

  const decide = (approval: Approval, decision: OperatorDecision) => action.run(async () => {
    const decided = await confirmAndDecide(approval, decision);
    if (decided === null) return null;
    await approvals.reload();
    return `${KIND_TEXT[decided.kind]} ${decided.state === 'allowed' ? 'allowed' : 'denied'} (${decided.decision}).`;
  });

  return (
    <Panel title="Approvals" intro="Requests a run waits on. Each shows exactly what would happen; unanswered ones are denied when they expire.">
      <ActionOutcome action={action} />
      <Loaded resource={approvals}>
        {(list) => list.length === 0 ? <p class="muted">Nothing is waiting for a decision.</p> : list.map((approval) => (
          <div key={approval.id} class="card approval" data-approval-id={approval.id}>
            <h3>{KIND_TEXT[approval.kind]}</h3>
            <pre class="mono request">{approval.request}</pre>
            <dl class="facts">
              <dt>Run</dt><dd class="mono">{approval.run_id ?? '— (a chat)'}</dd>
              <dt>Session</dt><dd class="mono">{approval.session_id}</dd>
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
    </Panel>
  );
}
