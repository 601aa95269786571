// The chrome every task page has (a site header, a side menu, a footer), written into the page
// so the task pages stay short: what a snapshot of a real shop or portal carries besides the task.
(function () {
  const nav = ["Home", "New arrivals", "Kitchen", "Garden", "Lighting", "Office", "Gifts", "Sale", "Help", "Account"];
  const side = ["Orders", "Returns", "Delivery times", "Gift cards", "Store finder", "Newsletter"];
  const foot = ["About us", "Careers", "Press", "Privacy", "Cookies", "Terms of sale", "Accessibility", "Contact"];
  const links = (xs) => xs.map((x) => `<li><a href="/tasks/info.html#${encodeURIComponent(x)}">${x}</a></li>`).join("");
  const header = document.createElement("header");
  header.innerHTML = `<a href="/tasks/shop.html">Homewares Co.</a><nav aria-label="Main"><ul>${links(nav)}</ul></nav>` +
    `<form action="/tasks/results.html"><input name="q" aria-label="Search the shop" placeholder="Search"><button>Search</button></form>`;
  const aside = document.createElement("aside");
  aside.innerHTML = `<h2>Customer service</h2><ul>${links(side)}</ul><p>Free delivery on orders over 50 EUR.</p>`;
  const footer = document.createElement("footer");
  footer.innerHTML = `<ul>${links(foot)}</ul><p>© Homewares Co. All prices include VAT.</p>`;
  document.body.prepend(header);
  document.body.append(aside, footer);
})();
