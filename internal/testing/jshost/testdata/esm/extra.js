export const fromStar = "star";
export const answer = "shadowed by main's own export";
export default
	[1, 2].map((x) => x * 2);
