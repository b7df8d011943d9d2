"use client";
import { lazyPart } from "@/components/ui/lazy-part";

// Shown only for a link the page cannot apply, so not in the pages' first load: the server
// draws it into such a link's HTML, and its code comes right after to make its button work.
export const UrlProblems = lazyPart(() => import("./url-problems").then((m) => m.UrlProblems), null);
