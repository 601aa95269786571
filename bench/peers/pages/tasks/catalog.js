const catalog = [
  { name: "Blue Kettle", price: 39, stock: "In stock" }, { name: "Steel Kettle", price: 45, stock: "In stock" },
  { name: "Glass Teapot", price: 29, stock: "Low stock" }, { name: "Cast Iron Pan", price: 59, stock: "In stock" },
  { name: "Chef Knife", price: 79, stock: "In stock" }, { name: "Bread Board", price: 25, stock: "Sold out" },
  { name: "Spice Rack", price: 34, stock: "In stock" }, { name: "Salad Bowl", price: 22, stock: "In stock" },
  { name: "Coffee Grinder", price: 65, stock: "Low stock" }, { name: "Measuring Jug", price: 12, stock: "In stock" },
  { name: "Oven Mitts", price: 15, stock: "In stock" }, { name: "Pasta Maker", price: 89, stock: "In stock" },
];
