/**
 * The one width of the product: the top bar and every page's content share it, so the menu and
 * what it opens line up. Text-heavy pages narrow their own paragraphs inside it.
 */
export const PAGE_WIDTH = "mx-auto w-full max-w-screen-2xl px-4 sm:px-6";
