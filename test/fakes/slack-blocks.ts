/**
 * Block Kit checks of the fake Slack Web API: the limits Slack enforces with `invalid_blocks`, so a
 * renderer that forgets one fails the test the way it would fail in Slack.
 */
type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function textObject(value: unknown, max: number, where: string, type?: "plain_text"): string | undefined {
  if (!isRecord(value)) return `${where}: text object missing`;
  if (value.type !== "plain_text" && value.type !== "mrkdwn") return `${where}: bad text type`;
  if (type && value.type !== type) return `${where}: must be ${type}`;
  const text = value.text;
  if (typeof text !== "string" || text.length < 1) return `${where}: empty text`;
  if (text.length > max) return `${where}: text longer than ${max}`;
  return undefined;
}

function checkSection(block: Json, i: number): string | undefined {
  if (block.text !== undefined) {
    const problem = textObject(block.text, 3000, `blocks[${i}].text`);
    if (problem) return problem;
  }
  if (block.fields !== undefined) {
    if (!Array.isArray(block.fields) || block.fields.length > 10) return `blocks[${i}].fields: at most 10`;
    for (const [j, field] of block.fields.entries()) {
      const problem = textObject(field, 2000, `blocks[${i}].fields[${j}]`);
      if (problem) return problem;
    }
  }
  if (block.text === undefined && block.fields === undefined)
    return `blocks[${i}]: section needs text or fields`;
  return undefined;
}

function checkActions(block: Json, i: number, actionIds: Set<string>): string | undefined {
  const elements = block.elements;
  if (!Array.isArray(elements) || elements.length < 1 || elements.length > 25) {
    return `blocks[${i}].elements: 1 to 25`;
  }
  for (const [j, element] of elements.entries()) {
    if (!isRecord(element) || element.type !== "button") return `blocks[${i}].elements[${j}]: not a button`;
    const problem = textObject(element.text, 75, `blocks[${i}].elements[${j}].text`, "plain_text");
    if (problem) return problem;
    if (typeof element.value === "string" && element.value.length > 2000) return `button value over 2000`;
    if (element.style !== undefined && element.style !== "primary" && element.style !== "danger") {
      return `blocks[${i}].elements[${j}]: bad style`;
    }
    const id = String(element.action_id ?? "");
    if (id.length > 255) return "action_id over 255";
    if (id !== "" && actionIds.has(id)) return `duplicate action_id ${id}`;
    actionIds.add(id);
  }
  return undefined;
}

function checkBlock(block: unknown, i: number, actionIds: Set<string>): string | undefined {
  if (!isRecord(block)) return `blocks[${i}]: not an object`;
  switch (block.type) {
    case "header":
      return textObject(block.text, 150, `blocks[${i}].text`, "plain_text");
    case "section":
      return checkSection(block, i);
    case "context": {
      const elements = block.elements;
      if (!Array.isArray(elements) || elements.length < 1 || elements.length > 10) {
        return `blocks[${i}].elements: 1 to 10`;
      }
      for (const [j, el] of elements.entries()) {
        const problem = textObject(el, 3000, `blocks[${i}].elements[${j}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case "actions":
      return checkActions(block, i, actionIds);
    case "divider":
      return undefined;
    default:
      return `blocks[${i}]: unknown block type ${String(block.type)}`;
  }
}

/** Undefined when Slack would take these blocks; otherwise why it would answer `invalid_blocks`. */
export function blocksProblem(blocks: unknown, maxBlocks = 50): string | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return "blocks is not a list";
  if (blocks.length > maxBlocks) return `more than ${maxBlocks} blocks`;
  const actionIds = new Set<string>();
  for (const [i, block] of blocks.entries()) {
    const problem = checkBlock(block, i, actionIds);
    if (problem) return problem;
  }
  return undefined;
}
