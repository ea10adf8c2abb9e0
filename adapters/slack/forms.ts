import type { App, ViewSubmitAction } from "@slack/bolt";
import type { AdapterCore, Logger } from "../../src/core/index.js";
import { type FormSpec, formLine } from "../../src/core/index.js";
import type { Delivery } from "./deliver.js";
import type { Inflight } from "./inflight.js";
import { ranByBlock } from "./render/blocks.js";
import type { SlackWeb } from "./web.js";

/**
 * Slack's side of forms for missing arguments: a modal (`views.open` with the command's
 * `trigger_id`) with one input per argument, and its `view_submission`. The values become the
 * command line the person would have typed, checked by the core's parsers; a refusal stays in the
 * modal under its field (`response_action: "errors"`), a good line runs like the typed command and
 * its answer is posted into the channel the command came from (kept in `private_metadata`).
 */
export const FORM_CALLBACK_ID = "opsbot_form";
const INPUT_ACTION_ID = "value";

interface FormMetadata {
  verb: string;
  channel: string;
  /** A button's form: the command line its answer completes (`case clear C12`). */
  lead?: string;
}

function formView(spec: FormSpec, meta: FormMetadata): Record<string, unknown> {
  return {
    type: "modal",
    callback_id: FORM_CALLBACK_ID,
    private_metadata: JSON.stringify(meta),
    title: { type: "plain_text", text: spec.title.slice(0, 24) },
    submit: { type: "plain_text", text: spec.submit },
    close: { type: "plain_text", text: "Cancel" },
    blocks: spec.fields.map((field) => ({
      type: "input",
      block_id: field.name,
      optional: field.optional === true,
      label: { type: "plain_text", text: field.label },
      element: {
        type: "plain_text_input",
        action_id: INPUT_ACTION_ID,
        placeholder: { type: "plain_text", text: field.placeholder.slice(0, 150) },
        ...(field.freeText && { multiline: true, max_length: field.freeText.maxChars }),
      },
      ...(field.hint !== undefined && { hint: { type: "plain_text", text: field.hint } }),
    })),
  };
}

export interface FormListenerOptions {
  core: Pick<AdapterCore, "handle">;
  forms: Readonly<Record<string, FormSpec>>;
  delivery: Delivery;
  inflight: Inflight;
  logger: Logger;
  now(): number;
}

/** Opens the form of `spec` for a command typed in `channel`; false when Slack refused it. */
export async function openForm(
  web: SlackWeb,
  logger: Logger,
  triggerId: string,
  spec: FormSpec,
  channel: string,
  lead?: string,
): Promise<boolean> {
  try {
    await web.openView(triggerId, formView(spec, { verb: spec.verb, channel, ...(lead && { lead }) }));
    return true;
  } catch (error) {
    logger.warn({ err: error, channel }, "could not open a Slack form; answering with the usage line");
    return false;
  }
}

export function registerForms(app: App, options: FormListenerOptions): void {
  app.view({ callback_id: FORM_CALLBACK_ID, type: "view_submission" }, async ({ ack, body, view }) => {
    const meta = readMetadata(view.private_metadata);
    const spec = meta && options.forms[meta.verb];
    if (!meta || !spec) return ack();
    const result = formLine(spec, valuesOf(view), new Date(options.now()), meta.lead);
    if (!result.ok) return ack({ response_action: "errors", errors: result.errors });
    await options.inflight.run(async () => {
      await ack();
      await runSubmitted(body as ViewSubmitAction, meta.channel, result.line, options);
    });
  });
}

async function runSubmitted(
  body: ViewSubmitAction,
  channel: string,
  line: string,
  options: FormListenerOptions,
): Promise<void> {
  const user = body.user.id;
  try {
    const reply = await options.core.handle({
      kind: "command",
      actor: { platform: "slack", userId: user, ...(body.user.name && { displayName: body.user.name }) },
      conversation: { platform: "slack", id: channel },
      text: line,
    });
    const lead = reply.visibility === "public" ? [ranByBlock(`/${line}`, user)] : [];
    await options.delivery.answer({ channel, user }, reply, lead);
  } catch (error) {
    options.logger.error({ err: error, channel }, "could not deliver the answer to a Slack form");
  }
}

function readMetadata(raw: string | undefined): FormMetadata | undefined {
  try {
    const meta = JSON.parse(raw ?? "") as Partial<FormMetadata>;
    if (typeof meta.verb !== "string" || typeof meta.channel !== "string") return undefined;
    return {
      verb: meta.verb,
      channel: meta.channel,
      ...(typeof meta.lead === "string" && { lead: meta.lead }),
    };
  } catch {
    return undefined;
  }
}

function valuesOf(view: ViewSubmitAction["view"]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [blockId, actions] of Object.entries(view.state.values)) {
    const value = actions[INPUT_ACTION_ID]?.value;
    if (typeof value === "string") values[blockId] = value;
  }
  return values;
}
