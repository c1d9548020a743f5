import { escapeHtml, html, markup } from './page';

describe('escapeHtml', () => {
  it('escapes what could open a tag, an entity or leave a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
  });
});

describe('html', () => {
  it('escapes every value put into it', () => {
    const name = '<img src=x onerror=alert(1)>';
    expect(markup(html`<p title="${name}">${name}</p>`)).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('keeps nested html and lists of it, and leaves nothing for null, undefined and false', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(markup(html`${items}`)).toBe('<li>a&lt;b</li><li>c</li>');
    expect(markup(html`<b>${null}${undefined}${false}${0}</b>`)).toBe('<b>0</b>');
  });

  it('does not take a look-alike object for markup', () => {
    const forged = JSON.parse('{"html":"<script>"}');
    expect(markup(html`${forged}`)).toBe('[object Object]');
  });
});
