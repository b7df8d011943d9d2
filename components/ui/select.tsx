import { forwardRef, type SelectHTMLAttributes } from "react";
import { cn } from "./cn";
import { inputClass } from "./field";

export interface SelectOption {
  value: string;
  label: string;
  disabled?: boolean;
}
export interface SelectGroup {
  label: string;
  options: SelectOption[];
}

/** A native select (the most accessible one there is), styled; options flat or in groups. */
export const Select = forwardRef<
  HTMLSelectElement,
  SelectHTMLAttributes<HTMLSelectElement> & { options?: SelectOption[]; groups?: SelectGroup[]; placeholder?: string }
>(function Select({ options, groups, placeholder, className, ...props }, ref) {
  return (
    <select ref={ref} className={cn(inputClass, "pr-8", className)} {...props}>
      {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
      {options?.map((o) => (
        <option key={o.value} value={o.value} disabled={o.disabled}>
          {o.label}
        </option>
      ))}
      {groups?.map((g) => (
        <optgroup key={g.label} label={g.label}>
          {g.options.map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
});
