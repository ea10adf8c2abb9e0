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

function checkInput(block: Json, i: number, blockIds: Set<string>): string | undefined {
  const id = String(block.block_id ?? "");
  if (id.length > 255) return `blocks[${i}].block_id over 255`;
  if (id !== "" && blockIds.has(id)) return `duplicate block_id ${id}`;
  blockIds.add(id);
  const label = textObject(block.label, 2000, `blocks[${i}].label`, "plain_text");
  if (label) return label;
  if (block.hint !== undefined) {
    const hint = textObject(block.hint, 2000, `blocks[${i}].hint`, "plain_text");
    if (hint) return hint;
  }
  const element = block.element;
  if (!isRecord(element) || element.type !== "plain_text_input")
    return `blocks[${i}].element: not a plain_text_input`;
  if (typeof element.action_id !== "string" || element.action_id.length > 255)
    return `blocks[${i}].element.action_id`;
  if (element.placeholder !== undefined) {
    return textObject(element.placeholder, 150, `blocks[${i}].element.placeholder`, "plain_text");
  }
  return undefined;
}

/** Undefined when Slack would open this modal; otherwise why it would refuse it. */
export function viewProblem(view: Json): string | undefined {
  if (view.type !== "modal") return "view.type must be modal";
  for (const key of ["title", "submit", "close"] as const) {
    if (view[key] === undefined && key !== "title") continue;
    const problem = textObject(view[key], 24, `view.${key}`, "plain_text");
    if (problem) return problem;
  }
  if (typeof view.private_metadata === "string" && view.private_metadata.length > 3000)
    return "private_metadata over 3000";
  if (typeof view.callback_id === "string" && view.callback_id.length > 255) return "callback_id over 255";
  const blocks = view.blocks;
  if (!Array.isArray(blocks) || blocks.length > 100) return "view.blocks: up to 100";
  const blockIds = new Set<string>();
  const rest: unknown[] = [];
  for (const [i, block] of blocks.entries()) {
    if (isRecord(block) && block.type === "input") {
      const problem = checkInput(block, i, blockIds);
      if (problem) return problem;
    } else rest.push(block);
  }
  return blocksProblem(rest, 100);
}
