"use client";
/**
 * The delivery fields the alert-rule and subscription forms share: the schedule picker (in the
 * reporting time zone) beside the recipients picker (dashboard users as checkboxes, other addresses
 * one per line).
 */
import { describeSchedule } from "@/lib/features/notifications/spec";
import { inputClass } from "@/components/ui/field";
import { Select } from "@/components/ui/select";
import { cn } from "@/components/ui/cn";
import { scheduleSpec, type RecipientsDraft, type ScheduleDraft } from "./drafts";
import type { DirectoryUser } from "./answers";
import { FieldMessages, Hint, ids } from "./form-feedback";

/**
 * What the alerts page's forms and lists share about delivery, from the server's render: the
 * directory of dashboard users recipients are picked from, the signed-in person, and the reporting
 * time zone schedules read in.
 */
export interface DeliveryContext {
  users: readonly DirectoryUser[];
  selfId: string;
  timeZone: string;
}

/** The schedule and the recipients, side by side on a wide screen. */
export function DeliveryFields({
  idBase,
  schedule,
  recipients,
  onChange,
  allowHourly,
  context: { timeZone, users, selfId },
  errors,
  note,
}: {
  idBase: string;
  schedule: ScheduleDraft;
  recipients: RecipientsDraft;
  onChange: (patch: { schedule: ScheduleDraft } | { recipients: RecipientsDraft }) => void;
  allowHourly: boolean;
  context: DeliveryContext;
  errors: { schedule?: string[] | undefined; recipients?: string[] | undefined };
  /** What is true whoever is named (an alert always tells its owner). */
  note?: string;
}) {
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <ScheduleField idBase={`${idBase}-schedule`} value={schedule} onChange={(v) => onChange({ schedule: v })} allowHourly={allowHourly} timeZone={timeZone} errors={errors.schedule} />
      <RecipientsField
        idBase={`${idBase}-recipients`}
        value={recipients}
        onChange={(v) => onChange({ recipients: v })}
        users={users}
        selfId={selfId}
        errors={errors.recipients}
        {...(note ? { note } : {})}
      />
    </div>
  );
}

const pad = (n: number) => String(n).padStart(2, "0");
const HOURS = Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: `${pad(h)}:00` }));
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map((d, i) => ({ value: String(i + 1), label: d }));
const DAYS = Array.from({ length: 28 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }));

function ScheduleField({
  idBase,
  value,
  onChange,
  allowHourly,
  timeZone,
  errors,
}: {
  idBase: string;
  value: ScheduleDraft;
  onChange: (v: ScheduleDraft) => void;
  allowHourly: boolean;
  timeZone: string;
  errors: string[] | undefined;
}) {
  const errorId = `${idBase}-error`;
  const describe = `${idBase}-describe`;
  const invalid = (errors?.length ?? 0) > 0;
  const every = [
    ...(allowHourly ? [{ value: "hour", label: "Every hour" }] : []),
    { value: "day", label: "Every day" },
    { value: "week", label: "Every week" },
    { value: "month", label: "Every month" },
  ];
  const set = (patch: Partial<ScheduleDraft>) => onChange({ ...value, ...patch });
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={ids(describe, invalid && errorId)}>
      <legend className="text-sm font-medium text-slate-900">Schedule</legend>
      <div className="flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${idBase}-every`} className="text-sm text-slate-900">
            Repeats
          </label>
          <Select
            id={`${idBase}-every`}
            className="w-40"
            options={every}
            value={value.every}
            aria-invalid={invalid || undefined}
            onChange={(e) => set({ every: e.target.value as ScheduleDraft["every"] })}
          />
        </div>
        {value.every === "hour" ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={`${idBase}-minute`} className="text-sm text-slate-900">
              At minute past the hour (0–59)
            </label>
            <input
              id={`${idBase}-minute`}
              type="number"
              min={0}
              max={59}
              step={1}
              className={cn(inputClass, "w-28")}
              value={Number.isNaN(value.minute) ? "" : value.minute}
              aria-invalid={invalid || undefined}
              onChange={(e) => set({ minute: e.target.value === "" ? Number.NaN : Number(e.target.value) })}
            />
          </div>
        ) : null}
        {value.every === "week" ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={`${idBase}-weekday`} className="text-sm text-slate-900">
              On
            </label>
            <Select id={`${idBase}-weekday`} className="w-40" options={WEEKDAYS} value={String(value.weekday)} onChange={(e) => set({ weekday: Number(e.target.value) })} />
          </div>
        ) : null}
        {value.every === "month" ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={`${idBase}-day`} className="text-sm text-slate-900">
              On day (1–28)
            </label>
            <Select id={`${idBase}-day`} className="w-24" options={DAYS} value={String(value.day)} onChange={(e) => set({ day: Number(e.target.value) })} />
          </div>
        ) : null}
        {value.every !== "hour" ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={`${idBase}-hour`} className="text-sm text-slate-900">
              At ({timeZone})
            </label>
            <Select id={`${idBase}-hour`} className="w-28" options={HOURS} value={String(value.hour)} onChange={(e) => set({ hour: Number(e.target.value) })} />
          </div>
        ) : null}
      </div>
      <Hint id={describe}>{Number.isNaN(value.minute) && value.every === "hour" ? "Enter the minute past the hour." : `${describeSchedule(scheduleSpec(value), timeZone)}.`}</Hint>
      <FieldMessages id={errorId} messages={errors} />
    </fieldset>
  );
}

function RecipientsField({
  idBase,
  value,
  onChange,
  users,
  selfId,
  errors,
  note,
}: {
  idBase: string;
  value: RecipientsDraft;
  /** What is true whoever is named (an alert always tells its owner). */
  note?: string;
  onChange: (v: RecipientsDraft) => void;
  users: readonly DirectoryUser[];
  selfId: string;
  errors: string[] | undefined;
}) {
  const errorId = `${idBase}-error`;
  const hintId = `${idBase}-hint`;
  const invalid = (errors?.length ?? 0) > 0;
  // Named users the directory no longer lists (disabled since) stay visible so they can be removed.
  const unknown = value.users.filter((id) => !users.some((u) => u.id === id));
  const toggle = (id: string, on: boolean) => onChange({ ...value, users: on ? [...value.users, id] : value.users.filter((x) => x !== id) });
  return (
    <fieldset className="flex flex-col gap-2" aria-describedby={ids(hintId, invalid && errorId)}>
      <legend className="text-sm font-medium text-slate-900">Recipients</legend>
      <Hint id={hintId}>
        {note ? `${note} ` : ""}Dashboard users get each message in their inbox here, and by e-mail when e-mail is on; other addresses get e-mail only.
      </Hint>
      <div className="flex flex-col gap-1">
        <span id={`${idBase}-users-label`} className="text-sm text-slate-900">
          Dashboard users
        </span>
        <div role="group" aria-labelledby={`${idBase}-users-label`} className="flex max-h-48 flex-col gap-1 overflow-y-auto rounded-md border border-slate-300 bg-white p-2">
          {users.map((u) => (
            <div key={u.id}>
              <label className="flex items-center gap-2 text-sm text-slate-900">
                <input type="checkbox" className="size-4" checked={value.users.includes(u.id)} onChange={(e) => toggle(u.id, e.target.checked)} />
                {u.email}
                <span className="text-xs text-slate-700">
                  ({u.role}
                  {u.id === selfId ? ", you" : ""})
                </span>
              </label>
            </div>
          ))}
          {unknown.map((id) => (
            <div key={id}>
              <label className="flex items-center gap-2 text-sm text-slate-900">
                <input type="checkbox" className="size-4" checked onChange={() => toggle(id, false)} />
                A user no longer active ({id.slice(0, 8)}…): clear to remove
              </label>
            </div>
          ))}
        </div>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${idBase}-emails`} className="text-sm text-slate-900">
          Other e-mail addresses (one per line)
        </label>
        <textarea
          id={`${idBase}-emails`}
          rows={3}
          className={cn(inputClass, "font-mono")}
          value={value.emails}
          placeholder="ops@example.com"
          aria-invalid={invalid || undefined}
          aria-describedby={ids(invalid && errorId)}
          onChange={(e) => onChange({ ...value, emails: e.target.value })}
        />
      </div>
      <FieldMessages id={errorId} messages={errors} />
    </fieldset>
  );
}
