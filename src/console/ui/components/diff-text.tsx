/**
 * A review text (a pending MCP manifest change) as preformatted lines, the removed and added ones
 * marked. Each line is a text node: whatever a tool server wrote in a description stays text.
 */
export function DiffText({ text, label }: { text: string; label: string }) {
  return (
    <pre class="diff" aria-label={label}>
      {text.split('\n').map((line, i) => {
        const mark = /^\s*- /.test(line) ? 'del' : /^\s*\+ /.test(line) ? 'add' : undefined;
        return <span key={i} class={mark}>{line}{'\n'}</span>;
      })}
    </pre>
  );
}
