import type { ComponentChildren } from 'preact';
import { parseMarkdown, type Block, type Inline } from './markdown.js';

/**
 * An answer rendered from Markdown as elements, never as HTML: every string from the answer ends up
 * as a text node (docs/decisions.md#answers-are-markdown-never-html).
 */
export function Markdown({ text, class: className, streaming = false }: { text: string; class?: string; streaming?: boolean }) {
  // While an answer streams, its element is busy: screen readers wait for it rather than reading every piece.
  return (
    <div class={className ? `markdown ${className}` : 'markdown'} aria-busy={streaming ? 'true' : undefined} data-streaming={streaming ? 'true' : undefined}>
      {parseMarkdown(text).map(block)}
    </div>
  );
}

function block(node: Block, key: number) {
  switch (node.type) {
    case 'heading': {
      // Answers sit under the panel's own headings: their levels start below them.
      const Tag = `h${Math.min(6, node.level + 2)}` as 'h3';
      return <Tag key={key}>{inlines(node.children)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inlines(node.children)}</p>;
    case 'code':
      return <pre key={key}><code class={node.lang ? `language-${node.lang}` : undefined}>{node.text}</code></pre>;
    case 'list': {
      const items = node.items.map((item, i) => <li key={i}>{inlines(item)}</li>);
      return node.ordered ? <ol key={key} start={node.start}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
  }
}

function inlines(nodes: Inline[]): ComponentChildren {
  return nodes.map((node, key) => {
    switch (node.type) {
      case 'text':
        return node.text;
      case 'code':
        return <code key={key}>{node.text}</code>;
      case 'strong':
        return <strong key={key}>{inlines(node.children)}</strong>;
      case 'em':
        return <em key={key}>{inlines(node.children)}</em>;
      case 'link':
        return <a key={key} href={node.href} target="_blank" rel="noopener noreferrer">{inlines(node.children)}</a>;
      case 'break':
        return <br key={key} />;
    }
  });
}
