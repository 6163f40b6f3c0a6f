// The board a player clicks (dashboard/board_click.py): the board's SVG and its legend, sent from
// Python as data, and a click anywhere on the board reported back in the board's own units (its
// cells' centres are the engine's), so Python finds the cell and the unit in it. Called again on
// every rerun with the page's latest board: the listeners are added once, the picture replaced
// only when it changed. Hovering a unit or a cell shows its text at once (a browser's own
// tooltip waits a second): each <title> becomes the element's data-tip and aria-label. A page
// that asks (data.tell_drawn) hears once when the board was first drawn.
// The board is as wide as its column; the buttons in its corner zoom it (its view then
// scrolls), the zoom kept across redraws. A click is read through the SVG's own screen
// transform (getScreenCTM), so on a zoomed and scrolled board it still names the cell clicked.
const ZOOMS = [1, 1.25, 1.5, 2, 2.5, 3];

function zoomTo(board, level) {
  board.dataset.zoom = String(level);
  const svg = board.querySelector("svg[data-board]");
  if (svg) svg.style.width = `${ZOOMS[level] * 100}%`;
  const label = board.parentElement.querySelector(".warlog-board-zoom [data-zoom=reset]");
  if (label) label.textContent = `${Math.round(ZOOMS[level] * 100)}%`;
}

function zoomButtons(board) {
  const bar = document.createElement("div");
  bar.className = "warlog-board-zoom";
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", "Zoom the board");
  for (const [name, text, title] of [["out", "\u2212", "Zoom out"], ["reset", "100%", "Whole board"],
                                     ["in", "+", "Zoom in"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.zoom = name;
    button.textContent = text;
    button.title = title;
    button.setAttribute("aria-label", title);
    button.addEventListener("click", (event) => {
      event.stopPropagation();
      const now = Number(board.dataset.zoom || 0);
      const next = name === "in" ? Math.min(now + 1, ZOOMS.length - 1)
        : name === "out" ? Math.max(now - 1, 0) : 0;
      zoomTo(board, next);
    });
    bar.appendChild(button);
  }
  return bar;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let board = parentElement.querySelector(".warlog-board");
  if (!board) {
    const frame = document.createElement("div");
    board = document.createElement("div");
    board.className = "warlog-board";
    const tip = document.createElement("div");
    tip.className = "warlog-board-tip";
    tip.setAttribute("role", "tooltip");
    frame.appendChild(zoomButtons(board));
    frame.appendChild(board);
    parentElement.appendChild(frame);
    parentElement.appendChild(tip);
    board.addEventListener("click", (event) => {
      const svg = board.querySelector("svg[data-board]");
      const screen = svg && svg.getScreenCTM();
      if (!screen || !svg.contains(event.target)) return;
      const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(screen.inverse());
      board.dataset.clicks = String(Number(board.dataset.clicks || 0) + 1);
      // the count makes two clicks on one spot two events; the board's "seen" mark tells the
      // page which drawing was clicked; Shift (or Alt) asks for every order the click offers
      const seen = board.dataset.seen === undefined ? null : JSON.parse(board.dataset.seen);
      setTriggerValue("click", { x: at.x, y: at.y, n: Number(board.dataset.clicks), seen,
                                 shift: event.shiftKey || event.altKey });
    });
    board.addEventListener("pointermove", (event) => {
      const target = event.target.closest && event.target.closest("[data-tip]");
      if (!target) { tip.style.display = "none"; return; }
      tip.textContent = target.dataset.tip;
      tip.style.display = "block";
      tip.style.left = `${event.clientX + 14}px`;
      tip.style.top = `${event.clientY + 14}px`;
    });
    board.addEventListener("pointerleave", () => { tip.style.display = "none"; });
  }
  board.dataset.seen = JSON.stringify(data.seen === undefined ? null : data.seen);
  if (board.dataset.drawn !== data.version) {
    board.innerHTML = data.html;
    board.dataset.drawn = data.version;
    zoomTo(board, Number(board.dataset.zoom || 0));
    if (data.tell_drawn && !board.dataset.told) {  // once: the page may now add what waited
      board.dataset.told = "1";
      requestAnimationFrame(() => setTriggerValue("drawn", true));
    }
    for (const title of board.querySelectorAll("svg[data-board] g title")) {
      const owner = title.parentElement;
      owner.dataset.tip = title.textContent;
      owner.setAttribute("aria-label", title.textContent);
      title.remove();
    }
  }
}
