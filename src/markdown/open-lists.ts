/**
 * The list items open at a line of the body scan (scanner.ts), as CommonMark nests them: each
 * item's content column, outermost first. A line indented that far belongs to the item; a block
 * starting left of every item ends the list.
 */
export class OpenLists {
  private readonly columns: number[] = [];

  get open(): boolean {
    return this.columns.length > 0;
  }

  /** Is a line indented `indent` columns left of every open item's content? */
  leftOfAll(indent: number): boolean {
    const outermost = this.columns[0];
    return outermost !== undefined && indent < outermost;
  }

  /** Content column of the deepest open item a line indented `indent` columns reaches, 0 when none. */
  base(indent: number): number {
    return this.columns[this.reached(indent) - 1] ?? 0;
  }

  /** A block opens at `indent`: the items it does not reach are closed (all of them: the list ends). */
  keep(indent: number): void {
    this.columns.length = this.reached(indent);
  }

  /** An item whose marker is indented `indent` columns and whose content starts at `contentColumn`. */
  addItem(indent: number, contentColumn: number): void {
    this.keep(indent);
    this.columns.push(contentColumn);
  }

  leave(): void {
    this.columns.length = 0;
  }

  private reached(indent: number): number {
    let k = this.columns.length;
    for (let column = this.columns[k - 1]; column !== undefined && column > indent; column = this.columns[k - 1]) k--;
    return k;
  }
}
