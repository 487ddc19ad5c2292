// patch(el, markup): make el's children look like markup, changing only what differs.
// Nodes that stay keep their identity, so focus, selection and scroll stay where they are.
// Children are matched in order; an element with an id or data-key is matched by it, and
// old nodes before a match are dropped (nothing that stays is ever moved).
const SVG = "http://www.w3.org/2000/svg";
const tpl = document.createElement("template");

export function patch(el, markup) {
  const svg = el.namespaceURI === SVG;
  tpl.innerHTML = svg ? `<svg>${markup}</svg>` : markup;
  const from = svg ? tpl.content.firstChild : tpl.content;
  children(el, from);
  tpl.innerHTML = "";
}

const keyOf = (n) => (n.nodeType === 1 ? n.id || n.getAttribute("data-key") || "" : "");
const same = (a, b) =>
  a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);

function children(to, from) {
  let old = to.firstChild;
  for (const node of [...from.childNodes]) {
    const key = keyOf(node);
    if (key && old && !same(old, node)) {
      // Drop the old nodes before the one with this key, if it is further on.
      let found = old.nextSibling;
      while (found && keyOf(found) !== key) found = found.nextSibling;
      if (found && same(found, node)) {
        while (old !== found) { const gone = old; old = old.nextSibling; gone.remove(); }
      }
    }
    if (old && same(old, node)) { update(old, node); old = old.nextSibling; }
    else to.insertBefore(node, old);
  }
  while (old) { const gone = old; old = old.nextSibling; gone.remove(); }
}

function update(a, b) {
  if (a.nodeType !== 1) { if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue; return; }
  for (const { name } of [...a.attributes]) if (!b.hasAttribute(name)) a.removeAttribute(name);
  for (const { name, value } of b.attributes) {
    if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  }
  // What the user can change lives in properties, not attributes: set them from the markup.
  if (a.nodeName === "INPUT") {
    if (a.type === "checkbox" || a.type === "radio") a.checked = b.hasAttribute("checked");
    else if (a.value !== (b.getAttribute("value") ?? "")) a.value = b.getAttribute("value") ?? "";
  } else if (a.nodeName === "OPTION") a.selected = b.hasAttribute("selected");
  children(a, b);
}
