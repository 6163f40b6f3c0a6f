// The board a player clicks (dashboard/board_click.py): the board's SVG, sent from Python as
// data, and a click anywhere on it reported back in the board's own units (its cells' centres are
// the engine's), so Python finds the cell and the unit in it. Called again on every rerun with the
// page's latest board: the listener is added once, the picture replaced only when it changed.
export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let board = parentElement.querySelector(".warlog-board");
  if (!board) {
    board = document.createElement("div");
    board.className = "warlog-board";
    parentElement.appendChild(board);
    board.addEventListener("click", (event) => {
      const svg = board.querySelector("svg");
      const screen = svg && svg.getScreenCTM();
      if (!screen) return;
      const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(screen.inverse());
      board.dataset.clicks = String(Number(board.dataset.clicks || 0) + 1);
      // the count makes two clicks on one spot two events
      setTriggerValue("click", { x: at.x, y: at.y, n: Number(board.dataset.clicks) });
    });
  }
  if (board.dataset.drawn !== data.version) {
    board.innerHTML = data.svg;
    board.dataset.drawn = data.version;
  }
}
